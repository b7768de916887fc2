// What ships reads as documentation, not as a work diary on one machine: no absolute path of the
// machine it was written on (a home, work or temp folder of it) in README.md, docs/, catalogue/ or data/README.md,
// and no diary ("this stop", "the stop before", "issue 25", "turn 3") in README.md, docs/,
// data/README.md or the catalogue's comments. Measurement history belongs in commit messages. The
// patterns are built from pieces so this file does not match itself; the last test plants each kind.
import { readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { ROOT } from '../support/processes.js';
import { tempDir } from '../support/temp.js';
import { docFiles } from './markdown.js';
import { fieldTables, MARKED, PAGE } from './fields.js';

const MACHINE_PATH = new RegExp(['(?<![\\w.~])/', '(work|home|Users|root|mnt|srv|opt|tmp)/'].join(''));
const DIARY = new RegExp(['\\b(this|the|that|an earlier|earlier|last|previous) ', 'stop\\b(?! (accepting|the|a|it|sending|reading))', '|\\b(issue|turn) #?\\d+\\b'].join(''), 'i');

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else if (/\.(ya?ml|json|md)$/.test(name)) yield p;
  }
}

/** Every machine path and diary line of what ships under `root`, as "file:line: why: text". */
export function findings(root: string): string[] {
  const found: string[] = [];
  const docs = [...docFiles(root), 'data/README.md'].map((f) => join(root, f));
  const catalogue = [...walk(join(root, 'catalogue'))];
  for (const file of [...docs, ...catalogue]) {
    let text: string;
    try { text = readFileSync(file, 'utf8'); } catch { continue; }
    const isCatalogue = catalogue.includes(file);
    text.split('\n').forEach((line, i) => {
      const at = `${relative(root, file)}:${i + 1}`;
      if (MACHINE_PATH.test(line)) found.push(`${at}: a path of one machine: ${line.trim().slice(0, 120)}`);
      // In the catalogue only comments are prose; a source: field may name an issue tracker's number.
      const prose = isCatalogue ? (/^\s*#(.*)$/.exec(line)?.[1] ?? '') : line;
      if (DIARY.test(prose)) found.push(`${at}: a work diary: ${line.trim().slice(0, 120)}`);
    });
  }
  return found;
}

test('README.md, docs/, catalogue/ and data/README.md hold no machine path and no diary', () => {
  const found = findings(ROOT);
  assert.equal(found, [], found.join('\n'));
});

test('the scan finds each kind in a planted tree', () => {
  const root = tempDir('shipped-text-');
  mkdirSync(join(root, 'docs'));
  mkdirSync(join(root, 'data'));
  mkdirSync(join(root, 'catalogue'));
  writeFileSync(join(root, 'README.md'), `# x\nMeasured at ${'this'} stop: 1.07.\nSee /${'work'}/shared/x.md.\nOn SIGTERM it stops accepting.\n`);
  writeFileSync(join(root, 'docs', 'a.md'), `Fixed in ${'issue'} 25.\nRun \`npm run diff\`; /usr/bin/chromium and /_gateway/health are fine.\n`);
  writeFileSync(join(root, 'data', 'README.md'), `Copied from /${'tmp'}/data.\n`);
  writeFileSync(join(root, 'catalogue', 'e.yaml'), `# see ${'turn'} 3\nsource: 'the ${'issue'} 13 tracker'\n`);
  assert.equal(findings(root).map((f) => f.split(': ')[0]), ['README.md:2', 'README.md:3', 'docs/a.md:1', 'data/README.md:1', 'catalogue/e.yaml:1']);
});

test('the field tables of docs/catalogue-format.md are the ones the catalogue schema renders', () => {
  const m = MARKED.exec(readFileSync(PAGE, 'utf8'));
  assert.ok(m, 'docs/catalogue-format.md has the fields markers');
  const between = readFileSync(PAGE, 'utf8').split(m![1])[1].split(m![2])[0];
  assert.is(between, fieldTables(), 'the tables differ from catalogue/schema/catalogue.schema.json: run `node dist/test/docs/fields.js --write`');
});

test.run();
