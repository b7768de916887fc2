// A fresh clone must run on its own: no file in src/, tools/, test/ or bench/ names a path outside
// the checkout (a sibling "shared" folder, the machine it was written on, a home directory). The
// documents they read are vendored under data/ (data/README.md). System paths of the packages
// `npm test` installs (/usr/bin/chromium) and kernel interfaces (/proc, /dev) are not the checkout's
// business and stay allowed. The second test proves the scan can fail.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { ROOT } from '../support/processes.js';
import { tempDir } from '../support/temp.js';

// Built from pieces so this file does not match itself.
const FORBIDDEN: [RegExp, string][] = [
  [new RegExp(['\\.\\.', '/shared\\b'].join('')), 'a sibling shared folder (vendor the file under data/)'],
  [new RegExp(`['"]\\.\\.['"]\\s*,\\s*['"]${'shared'}['"]`), 'a sibling shared folder built with join()'],
  [new RegExp(['(?<![\\w.])/', '(work|home|Users|root|mnt|srv|opt)/'].join('')), 'an absolute path on one machine'],
  [new RegExp(['[A-Za-z]:', '\\\\\\\\(Users|work)'].join('')), 'a Windows absolute path'],
];
const SCANNED = ['src', 'tools', 'test', 'bench'];
const TEXT = /\.(ts|mts|mjs|cjs|js|json|md|yaml|yml|sh)$/;

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else if (TEXT.test(name)) yield p;
  }
}

/** Every forbidden path in the scanned folders of `root`, as "file:line: why: text". */
function outsidePaths(root: string): string[] {
  const found: string[] = [];
  for (const top of SCANNED) {
    let files: string[];
    try { files = [...walk(join(root, top))]; } catch { continue; }
    for (const file of files) {
      readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
        for (const [re, why] of FORBIDDEN) if (re.test(line)) found.push(`${relative(root, file)}:${i + 1}: ${why}: ${line.trim().slice(0, 120)}`);
      });
    }
  }
  return found;
}

test('src/, tools/, test/ and bench/ name no path outside the checkout', () => {
  const found = outsidePaths(ROOT);
  assert.ok(found.length === 0, `${found.length} path(s) outside the checkout:\n  ${found.join('\n  ')}`);
});

test('the scan finds each kind of outside path in a planted tree', () => {
  const copy = tempDir('paths-');
  mkdirSync(join(copy, 'test'));
  const planted = [
    `const a = '${'..'}/shared/data/x.tsv';`,
    `join(root, '..', '${'shared'}', 'seeds');`,
    `const b = '/${'work'}/shared/data';`,
    `const c = '/${'home'}/someone/x';`,
    `const ok = '/usr/bin/chromium'; const url = '/api/v3/ping'; const up = '../../src/x.js';`,
  ];
  writeFileSync(join(copy, 'test', 'planted.ts'), planted.join('\n'));
  const found = outsidePaths(copy);
  assert.equal(found.map((f) => f.split(':')[1]), ['1', '2', '3', '4'], found.join('\n'));
});

test.run();
