// dist/tools/diff-releases.js is one bundled module (tools/bundle.ts, run by `npm run build`): it must
// print what the compiled modules compute, and find the catalogue cache they write, since the
// cache key includes a hash of the loader's own compiled files.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { findService } from '../../src/catalogue/resolve.js';
import { diffReleases, formatJson } from '../../src/diff/index.js';
import { ROOT, runTool } from './support.js';
import { cacheDirWithParses } from '../support/cache-dir.js';
import { NODE_FLAGS } from '../support/processes.js';

const TOOL = join(ROOT, 'dist', 'tools', 'diff-releases.js');

test('the diff tool is one module: no relative imports left', () => {
  const text = readFileSync(TOOL, 'utf8');
  assert.match(text, /^\/\/ Bundled by tools\/bundle\.ts/);
  assert.not.match(text, /^import [^\n]* from ["']\.{1,2}\//m);
});

test('the bundled tool prints what the modules compute, both ways over the whole range', () => {
  const { catalogue } = loadCatalogue();
  const exchange = findService(catalogue, 'exchange');
  const first = exchange.releases[0].id;
  const last = exchange.releases.at(-1)!.id;
  for (const [from, to] of [[first, last], [last, first], ['3.5.1', '3.6.0']]) {
    const r = runTool('diff-releases', [from, to, '--format', 'json', '--service', 'exchange']);
    assert.is(r.status, 0, r.stderr);
    assert.is(r.stdout, formatJson(diffReleases(catalogue, exchange, from, to)), `${from} → ${to}`);
  }
});

test('the bundled tool reads the cache the modules wrote, and does not write another', () => {
  const cacheDir = cacheDirWithParses('diff-bundle-cache-');
  assert.is(loadCatalogue(undefined, { cacheDir }).fromCache, false);
  const caches = () => readdirSync(cacheDir).filter((f) => f.startsWith('catalogue-')); // (beside the file-kind validators)
  const [file] = caches();
  const written = statSync(join(cacheDir, file)).ino; // written atomically: a new inode (a read only marks the mtime)
  const r = spawnSync(process.execPath, [...NODE_FLAGS, TOOL, '1.0.0', '1.1.0', '--service', 'exchange'], {
    cwd: ROOT, encoding: 'utf8', env: { ...process.env, GATEWAY_CACHE_DIR: cacheDir },
  });
  assert.is(r.status, 0, r.stderr);
  assert.equal(caches(), [file], 'one cache, the same name');
  assert.is(statSync(join(cacheDir, file)).ino, written, 'not rewritten');
});

test.run();
