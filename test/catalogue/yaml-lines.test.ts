// Line numbers of catalogue values: parseYamlFile collects them in one walk (and keeps them with the
// parse in the cache folder); every one must be what the YAML library's own lookup gives, for every
// value of every file of the shipped catalogue, fresh and read back from the cache.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { LineCounter, parseDocument } from 'yaml';
import { DEFAULT_CATALOGUE_DIR } from '../../src/catalogue/load.js';
import { parseYamlFile, type ParsedYaml } from '../../src/catalogue/yaml-file.js';
import { tempDir } from '../support/temp.js';

const test = suite('yaml lines');

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? yamlFiles(p) : n.endsWith('.yaml') ? [p] : [];
  });
}

/** The reference: the line of the nearest node doc.getIn finds. */
function reference(text: string): (path: (string | number)[]) => number {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, uniqueKeys: true });
  return (path) => {
    for (let n = path.length; n >= 0; n--) {
      const node = doc.getIn(path.slice(0, n), true) as { range?: [number, number, number] } | undefined;
      if (node && node.range) return counter.linePos(node.range[0]).line;
    }
    return 1;
  };
}

/** Every path of a parsed value, plus one missing child under each map and list. */
function paths(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  const out = [at];
  if (Array.isArray(v)) {
    v.forEach((x, i) => out.push(...paths(x, [...at, i])));
    out.push([...at, v.length]);
  } else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...at, k]));
    out.push([...at, 'no-such-key']);
  }
  return out;
}

test('every value of every catalogue file: the line the YAML library gives, fresh and from the cache', () => {
  const cacheDir = tempDir('yaml-lines-');
  const files = yamlFiles(DEFAULT_CATALOGUE_DIR);
  assert.ok(files.length > 20, `${files.length} files`);
  let checked = 0;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const ref = reference(text);
    const fresh = parseYamlFile(file, text, [], cacheDir) as ParsedYaml;
    const kept = parseYamlFile(file, text, [], cacheDir) as ParsedYaml;
    assert.equal(kept.data, fresh.data, file);
    for (const p of paths(fresh.data)) {
      const want = ref(p);
      if (fresh.lineOf(p) !== want || kept.lineOf(p) !== want) assert.unreachable(`${file} ${JSON.stringify(p)}: ${fresh.lineOf(p)} / ${kept.lineOf(p)}, expected ${want}`);
      checked++;
    }
  }
  assert.ok(checked > 10_000, `${checked} paths checked`);
  assert.ok(readdirSync(join(cacheDir, 'yaml')).length >= files.length - 1, 'a kept parse per file (identical files share one)');
});

test('a file with a YAML error is reported at its line and never kept', () => {
  const cacheDir = tempDir('yaml-lines-bad-');
  const problems: { line: number; message: string }[] = [];
  assert.is(parseYamlFile('bad.yaml', 'a: 1\nb: [1, 2\nc: 3\n', problems as never, cacheDir), null);
  assert.ok(problems.length >= 1 && problems.every((p) => p.line >= 2 && /invalid YAML/.test(p.message)), JSON.stringify(problems));
  assert.throws(() => readdirSync(join(cacheDir, 'yaml')));
});

test.run();
