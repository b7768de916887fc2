// An unchanged catalogue folder is not read again (src/catalogue/folder-fingerprint.ts): its hash is
// kept with a fingerprint of its files' names and stat data, and any change to a name or a file's
// bytes (even one that keeps its size and modification time) sends the next load back to the bytes.
import { cpSync, mkdirSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { keepHash, keptHash, SETTLED_MS } from '../../src/catalogue/folder-fingerprint.js';
import { listCatalogueFiles } from '../../src/catalogue/catalogue-files.js';
import { loadCatalogue, loaderVersion } from '../../src/catalogue/load.js';
import { ROOT } from '../support/processes.js';
import { tempDir } from '../support/temp.js';
import { cacheDirWithParses } from '../support/cache-dir.js';

const test = suite('catalogue folder fingerprint');
const V = 'loader-v1';

function folder(): { root: string; cache: string; names: string[] } {
  const root = join(tempDir('fp-cat-'), 'catalogue');
  cpSync(join(ROOT, 'catalogue'), root, { recursive: true });
  return { root, cache: cacheDirWithParses('fp-cache-'), names: listCatalogueFiles(root, []) };
}
/** As if the read had begun later than the files' last change by more than the settle time. */
const settled = () => Date.now() + SETTLED_MS + 1000;

test('kept for an unchanged folder; not kept when a file changed within the settle time of the read', () => {
  const { root, cache, names } = folder();
  keepHash(cache, root, names, 'h-just-written', Date.now(), V);
  assert.is(keptHash(cache, root, V), undefined, 'files written just now were vouched for');
  keepHash(cache, root, names, 'h1', settled(), V);
  assert.is(keptHash(cache, root, V), 'h1');
  assert.is(keptHash(cache, root, 'loader-v2'), undefined, 'another loader version shares the fingerprint');
  assert.is(keptHash(cache, `${root}-elsewhere`, V), undefined, 'another folder took this one\'s hash');
});

test('a same-size edit with its modification time put back, a rename over a file, a new or removed file: not kept', () => {
  const cases: [string, (root: string) => void][] = [
    ['same-size edit, mtime restored', (root) => {
      const f = join(root, 'exchange/service.yaml');
      const { atime, mtime } = statSync(f);
      const text = readFileSync(f, 'utf8');
      writeFileSync(f, text.replace(/title: (\S)/, (_, c: string) => `title: ${c === 'X' ? 'Y' : 'X'}`));
      utimesSync(f, atime, mtime);
    }],
    ['a copy renamed over the file (same bytes)', (root) => {
      const f = join(root, 'exchange/service.yaml');
      writeFileSync(`${f}.new`, readFileSync(f));
      renameSync(`${f}.new`, f);
    }],
    ['a new file', (root) => { writeFileSync(join(root, 'exchange/extra.yaml'), 'module: x\n'); }],
    ['a removed file', (root) => { unlinkSync(join(root, 'exchange/changes.yaml')); }],
    ['a new folder with a file', (root) => { mkdirSync(join(root, 'other')); writeFileSync(join(root, 'other/a.yaml'), 'x: 1\n'); }],
  ];
  for (const [what, change] of cases) {
    const { root, cache, names } = folder();
    keepHash(cache, root, names, 'h1', settled(), V);
    assert.is(keptHash(cache, root, V), 'h1', what);
    change(root);
    assert.is(keptHash(cache, root, V), undefined, `${what}: the kept hash was trusted`);
  }
});

test('loadCatalogue: the same hash and model read or not; an edit seen at once', () => {
  const { root, cache } = folder();
  const first = loadCatalogue(root, { cacheDir: cache });
  // Fresh files are not vouched for; as if they had settled: keep the fingerprint now.
  keepHash(cache, root, listCatalogueFiles(root, []), first.hash, settled(), loaderVersion());
  const again = loadCatalogue(root, { cacheDir: cache });
  assert.is(again.hash, first.hash);
  assert.ok(again.fromCache);
  const f = join(root, 'exchange/service.yaml');
  writeFileSync(f, readFileSync(f, 'utf8').replace(/^title: .*$/m, 'title: Edited'));
  const edited = loadCatalogue(root, { cacheDir: cache });
  assert.is.not(edited.hash, first.hash, 'an edit kept the old hash');
  assert.not.ok(edited.fromCache);
});

test.run();
