// One process reads a kept model once while its cache file is unchanged and something holds it: the
// gateways and tools of a process that load an unchanged catalogue share the model and the releases
// resolved from it. A cache file written since (by anyone), or a folder that changed, is read again;
// and a model no one holds any more is not kept for reuse once its minute of hold is over.
import { readdirSync, readFileSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { findService, resolveService } from '../../src/catalogue/resolve.js';
import { cacheDirWithParses } from '../support/cache-dir.js';
import { demoCatalogue } from './demo-catalogue.js';
import { collectGarbage } from '../support/gc.js';
import { releaseHeld } from '../../src/catalogue/parsed-models.js';

const test = suite('catalogue model reuse');

const endpoints = (path: string) => `module: m\nendpoints:\n  - method: GET\n    path: ${path}\n`;

const catalogue = (path: string): string => demoCatalogue(endpoints(path), 'model-reuse-');

const modelFile = (cacheDir: string) => {
  const names = readdirSync(cacheDir).filter((n) => /^catalogue-.*\.json$/.test(n));
  assert.is(names.length, 1, names.join(', '));
  return join(cacheDir, names[0]);
};

test('an unchanged folder: one model and one resolved release for every load of the process', () => {
  const cacheDir = cacheDirWithParses('model-reuse-cache-');
  const dir = catalogue('/v1/a');
  assert.is(loadCatalogue(dir, { cacheDir }).fromCache, false);
  const [a, b] = [loadCatalogue(dir, { cacheDir }), loadCatalogue(dir, { cacheDir })];
  assert.ok(a.fromCache && b.fromCache);
  assert.ok(a.catalogue === b.catalogue, 'the second read shares the first one\'s model');
  const demo = findService(a.catalogue, 'demo');
  assert.ok(resolveService(demo) === resolveService(findService(b.catalogue, 'demo')), 'and its resolved release');
  assert.equal(resolveService(demo).served.map((e) => e.endpoint.path), ['/v1/a']);
});

test('a cache file written since is read again: replaced, or other bytes in place; another process marking it used is no change', () => {
  const cacheDir = cacheDirWithParses('model-reuse-cache-');
  const dir = catalogue('/v1/a');
  loadCatalogue(dir, { cacheDir });
  const first = loadCatalogue(dir, { cacheDir }).catalogue;
  const file = modelFile(cacheDir);
  const later = new Date(Date.now() + 60_000);
  utimesSync(file, later, later); // what another process's read does
  assert.ok(loadCatalogue(dir, { cacheDir }).catalogue === first);
  // Another writer's model, renamed in as writers do (same size: only the path's last letter differs).
  writeFileSync(`${file}.new`, readFileSync(file, 'latin1').replaceAll('"/v1/a"', '"/v1/z"'));
  renameSync(`${file}.new`, file);
  const replaced = loadCatalogue(dir, { cacheDir });
  assert.ok(replaced.catalogue !== first, 'the replaced file was read');
  assert.equal(findService(replaced.catalogue, 'demo').endpoints.map((e) => e.path), ['/v1/z']);
  writeFileSync(file, readFileSync(file, 'latin1').replaceAll('"/v1/z"', '"/v1/yy"'));
  assert.equal(findService(loadCatalogue(dir, { cacheDir }).catalogue, 'demo').endpoints.map((e) => e.path), ['/v1/yy'], 'the file written in place was read');
});

test('a changed folder gets its own model; a model no one holds any more is not kept for reuse', async () => {
  const cacheDir = cacheDirWithParses('model-reuse-cache-');
  const dir = catalogue('/v1/a');
  loadCatalogue(dir, { cacheDir });
  let first: object | undefined = loadCatalogue(dir, { cacheDir }).catalogue;
  // While it is held (a gateway serves it), loads of other folders do not push it out.
  for (const other of [catalogue('/v1/c'), catalogue('/v1/d')]) loadCatalogue(other, { cacheDir });
  assert.ok(loadCatalogue(dir, { cacheDir }).catalogue === first);
  // Released (a reload replaced it) and past the minute the last read models are held, it is
  // collected: the process does not keep it for later loads.
  const released = new WeakRef(first);
  first = undefined;
  releaseHeld(); // what the hold's timer does a minute after the last read
  await new Promise((r) => setImmediate(r)); // a WeakRef holds its target until the current job ends
  collectGarbage();
  await new Promise((r) => setImmediate(r));
  assert.is(released.deref(), undefined, 'a model no one uses is not held');
  const again = loadCatalogue(dir, { cacheDir });
  assert.ok(again.fromCache);
  assert.equal(findService(again.catalogue, 'demo').endpoints.map((e) => e.path), ['/v1/a']);
  writeFileSync(join(dir, 'demo/endpoints/m.yaml'), endpoints('/v1/b'));
  const changed = loadCatalogue(dir, { cacheDir });
  assert.is(changed.fromCache, false);
  assert.equal(findService(changed.catalogue, 'demo').endpoints.map((e) => e.path), ['/v1/b']);
});

test.run();
