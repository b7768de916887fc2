// The JSON cache is keyed by the loader's own code too: a catalogue an older loader accepted and
// cached is checked again by a newer one. Writing a cache prunes the older caches of that folder.
// The cache is written as ASCII JSON (a one-byte string is faster to read back). Parameter and body
// schemas' compile verdicts are kept beside it.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { defaultCacheDir, loadCatalogue, loaderVersion } from '../../src/catalogue/load.js';
import { CatalogueError } from '../../src/catalogue/problems.js';
import { ROOT, NODE_FLAGS } from '../support/processes.js';
import { tempDir } from '../support/temp.js';
import { cacheDirWithParses } from '../support/cache-dir.js';
import { demoCatalogue } from './demo-catalogue.js';

const test = suite('catalogue cache');

/** Accepted by a loader without the load-time schema compile; refused by this one. */
const BAD_PARAMETER = 'module: m\nendpoints:\n  - method: GET\n    path: /v1/a\n    parameters: [{ name: n, schema: { type: integr } }]\n';
const GOOD = 'module: m\nendpoints:\n  - method: GET\n    path: /v1/a\n';

const catalogue = (endpoints: string): string => demoCatalogue(endpoints, 'cat-cache-');

/**
 * The problems (line, message) of loading `cat` with `opts` in a worker thread: modules of its own,
 * so nothing an earlier load kept in memory (validators, verdicts) is reused and what it finds comes
 * from the cache folder or a fresh compile. (A process of its own costs twice the CPU.)
 */
function freshLoadProblems(cat: string, opts: { cacheDir: string | false; modelCache?: boolean }): Promise<[number, string][]> {
  const script = `const { parentPort } = require('node:worker_threads');
    import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist/src/catalogue/load.js')).href)}).then((m) => {
      try { m.loadCatalogue(${JSON.stringify(cat)}, ${JSON.stringify(opts)}); parentPort.postMessage([]); }
      catch (e) { parentPort.postMessage(e.problems ? e.problems.map((p) => [p.line, p.message]) : String(e.stack)); } })`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(script, { eval: true });
    worker.once('message', (m: [number, string][] | string) => (typeof m === 'string' ? reject(new Error(m)) : resolve(m)));
    worker.once('error', reject);
  });
}

/**
 * An "older loader": a copy of the compiled catalogue folder inside dist/ (so it resolves ajv and
 * yaml from node_modules) whose build step lacks the schema compile.
 */
async function olderLoader(): Promise<{ loadCatalogue: typeof loadCatalogue; dir: string }> {
  const dir = mkdtempSync(join(ROOT, 'dist', 'older-loader-'));
  cpSync(join(ROOT, 'dist/src/catalogue'), dir, { recursive: true });
  const build = join(dir, 'build', 'service.js');
  const text = readFileSync(build, 'utf8');
  assert.ok(text.includes('compileSchemas(b);'), 'the build step compiles schemas');
  writeFileSync(build, text.replace('compileSchemas(b);', ''));
  const mod = (await import(pathToFileURL(join(dir, 'load.js')).href)) as typeof import('../../src/catalogue/load.js');
  assert.is.not(mod.loaderVersion(), loaderVersion(), 'a changed loader has another version');
  return { loadCatalogue: mod.loadCatalogue, dir };
}

test('a catalogue cached by an older loader is checked again', async () => {
  const cat = catalogue(BAD_PARAMETER);
  const cacheDir = tempDir('cat-cache-dir-');
  const older = await olderLoader();
  try {
    assert.is(older.loadCatalogue(cat, { cacheDir }).fromCache, false);
    assert.is(older.loadCatalogue(cat, { cacheDir }).fromCache, true, 'the older loader reads its own cache');
    assert.is(readdirSync(cacheDir).filter((f) => f.startsWith('catalogue-')).length, 1);
    try {
      loadCatalogue(cat, { cacheDir });
      assert.unreachable('the current loader must not take the older cache');
    } catch (e) {
      if (!(e instanceof CatalogueError)) throw e;
      assert.match(e.message, /m\.yaml:5: GET \/v1\/a: parameter n: schema does not compile/);
    }
  } finally {
    for (const d of [cat, cacheDir, older.dir]) rmSync(d, { recursive: true, force: true });
  }
});

test('the bundled gateway carries the loader version of the files it was bundled from (it keys the same cache and serves the same hash)', () => {
  const bundle = readFileSync(join(ROOT, 'dist/src/cli.main.cjs'), 'utf8');
  assert.ok(bundle.includes(JSON.stringify(loaderVersion())), `dist/src/cli.main.cjs does not hold ${loaderVersion()}: bundled from other files (run npm run build)`);
  assert.not.ok(bundle.includes('__CATALOGUE_LOADER_VERSION__'), 'every use of the placeholder is replaced');
});

test('writing a cache prunes the older caches of the same folder, and only those', async () => {
  const cat = catalogue(GOOD);
  const cacheDir = tempDir('cat-cache-dir-');
  const older = await olderLoader();
  try {
    older.loadCatalogue(cat, { cacheDir });
    const [olderFile] = readdirSync(cacheDir);
    const otherFolder = 'catalogue-000000000000-0123456789abcdef0123456789abcdef.json';
    const legacy = 'catalogue-0123456789abcdef0123456789abcdef.json'; // named before the folder part existed
    const unrelated = 'notes.json';
    for (const f of [otherFolder, legacy, unrelated]) writeFileSync(join(cacheDir, f), '{}');

    const first = loadCatalogue(cat, { cacheDir });
    assert.is(first.fromCache, false);
    assert.is(loadCatalogue(cat, { cacheDir }).fromCache, true);
    const left = readdirSync(cacheDir).sort();
    assert.not.ok(left.includes(olderFile), `the older loader's cache ${olderFile} is pruned`);
    assert.not.ok(left.includes(legacy), 'a cache named the old way is pruned');
    assert.ok(left.includes(otherFolder), "another catalogue folder's cache is kept");
    assert.ok(left.includes(unrelated));
    assert.is(left.filter((f) => f.startsWith('catalogue-') && !f.startsWith('catalogue-000000000000-')).length, 1, left.join(', '));
    assert.ok(existsSync(join(cacheDir, left.find((f) => f !== otherFolder && f.startsWith('catalogue-'))!)));
  } finally {
    for (const d of [cat, cacheDir, older.dir]) rmSync(d, { recursive: true, force: true });
  }
});

test('caches of folders that come and go are bounded: the 32 most recently used are kept, a cache read counts as a use', () => {
  const cacheDir = tempDir('cat-cache-lru-');
  const cat = catalogue(GOOD);
  const another = catalogue(GOOD);
  try {
    const mine = loadCatalogue(cat, { cacheDir });
    assert.is(mine.fromCache, false);
    const myFile = readdirSync(cacheDir).find((f) => f.startsWith('catalogue-'))!;
    // 40 other folders' caches, each older than the last; mine is the oldest of all…
    const old = Date.now() / 1000 - 3600;
    for (let i = 0; i < 40; i++) {
      const f = join(cacheDir, `catalogue-${String(i).padStart(12, '0')}-${'0'.repeat(32)}.json`);
      writeFileSync(f, '{}');
      utimesSync(f, old + i, old + i);
    }
    utimesSync(join(cacheDir, myFile), old - 10, old - 10);
    // …until it is read, which marks it used now.
    assert.is(loadCatalogue(cat, { cacheDir }).fromCache, true);
    loadCatalogue(another, { cacheDir }); // a new folder's cache is written, and the cache folder pruned
    const left = readdirSync(cacheDir).filter((f) => f.startsWith('catalogue-'));
    const other = (i: number) => `catalogue-${String(i).padStart(12, '0')}-${'0'.repeat(32)}.json`;
    assert.is(left.length, 32, `${left.length} caches kept`);
    assert.ok(left.includes(myFile), 'the cache just read is kept');
    assert.is(left.filter((f) => f !== myFile).length, 31, 'the new one and the 30 most recently used others');
    for (let i = 0; i < 10; i++) assert.not.ok(left.includes(other(i)), `least recently used ${other(i)} went first`);
    for (let i = 10; i < 40; i++) assert.ok(left.includes(other(i)), `${other(i)} is kept`);
  } finally {
    for (const d of [cat, another, cacheDir]) rmSync(d, { recursive: true, force: true });
  }
});

test('the cache is ASCII JSON and reads back as the catalogue it was built from', () => {
  const cat = catalogue(GOOD.replace('path: /v1/a\n', 'path: /v1/a\n    summary: "Prix – 5 € (ünïcode, 🙂)"\n'));
  const cacheDir = tempDir('cat-cache-dir-');
  try {
    const built = loadCatalogue(cat, { cacheDir });
    const cached = loadCatalogue(cat, { cacheDir });
    assert.is(built.fromCache, false);
    assert.is(cached.fromCache, true);
    assert.is(cached.catalogue.services[0].endpoints[0].summary, 'Prix – 5 € (ünïcode, 🙂)');
    assert.equal(cached.catalogue, JSON.parse(JSON.stringify(built.catalogue)), "the model as JSON, unchanged");
    assert.is(cached.hash, built.hash);
    const [file] = readdirSync(cacheDir);
    const bytes = readFileSync(join(cacheDir, file));
    assert.ok(bytes.every((b) => b < 0x80), 'only ASCII bytes');
  } finally {
    for (const d of [cat, cacheDir]) rmSync(d, { recursive: true, force: true });
  }
});

test('the file-kind validators kept in the cache folder (ajv standalone code) find exactly what freshly compiled ones find', async () => {
  const cat = catalogue('module: m\nendpoints:\n  - method: GET\n    pathh: /v1/a\n    summary: 3\n  - method: FETCH\n    path: /v1/b\n');
  const cacheDir = tempDir('cat-cache-validators-');
  // Each load with modules of its own: within one set, the validators are kept in memory after the first.
  const problems = (dir: string | false) => freshLoadProblems(cat, { cacheDir: dir });
  const fresh = await problems(false);
  assert.ok(fresh.length >= 3, JSON.stringify(fresh));
  assert.ok(fresh.some(([, m]) => /pathh/.test(m)) && fresh.some(([, m]) => /FETCH|method/.test(m)), JSON.stringify(fresh));
  assert.equal(await problems(cacheDir), fresh, 'generating and keeping them');
  const kept = readdirSync(cacheDir).filter((f) => /^file-validators-[0-9a-f]{16}\.cjs$/.test(f));
  assert.is(kept.length, 1, readdirSync(cacheDir).join(', '));
  // Written atomically (a new file renamed into place): the same inode means read, not written again
  // (a read marks its mtime as a use).
  const written = statSync(join(cacheDir, kept[0])).ino;
  assert.equal(await problems(cacheDir), fresh, 'reading them back');
  assert.is(statSync(join(cacheDir, kept[0])).ino, written, 'read, not generated again');
});

test('schema verdicts kept in the cache folder give exactly the problems a fresh compile gives, and are read, not recompiled', async () => {
  // One schema ajv rejects, one the strict compile rejects (a typo), one good: each verdict kept.
  const cat = catalogue(`${BAD_PARAMETER}  - method: GET\n    path: /v1/b\n    parameters: [{ name: m, schema: { type: string, minimun: 1 } }, { name: k, schema: { type: integer } }]\n`);
  const cacheDir = tempDir('cat-cache-verdicts-');
  const problems = (dir: string | false) => freshLoadProblems(cat, { cacheDir: dir, modelCache: false });
  const fresh = await problems(false);
  assert.equal(fresh.map(([line]) => line), [5, 8], JSON.stringify(fresh));
  assert.match(fresh[0][1], /parameter n: schema does not compile/);
  assert.match(fresh[1][1], /parameter m: schema has a part the gateway would ignore: .*minimun/);
  assert.equal(await problems(cacheDir), fresh, 'compiling and keeping the verdicts');
  const kept = readdirSync(cacheDir).filter((f) => /^schema-checks-[0-9a-f]{16}\.json$/.test(f));
  assert.is(kept.length, 1, readdirSync(cacheDir).join(', '));
  const verdicts = Object.values(JSON.parse(readFileSync(join(cacheDir, kept[0]), 'utf8')) as Record<string, string | null>);
  assert.is(verdicts.filter((v) => v === null).length, 1, 'the good schema is kept as good');
  assert.is(verdicts.filter((v) => v !== null).length, 2);
  const written = statSync(join(cacheDir, kept[0])).mtimeMs;
  assert.equal(await problems(cacheDir), fresh, 'reading them back');
  assert.is(statSync(join(cacheDir, kept[0])).mtimeMs, written, 'read, not compiled and written again');
  // Files of other checking code (other keys) are pruned, least recently used first, past 4.
  const stale = [0, 1, 2, 3].map((i) => join(cacheDir, `schema-checks-000000000000000${i}.json`));
  stale.forEach((f, i) => { writeFileSync(f, '{}'); utimesSync(f, new Date(Date.now() - (10 - i) * 60_000), new Date(Date.now() - (10 - i) * 60_000)); });
  rmSync(join(cacheDir, kept[0]));
  assert.equal(await problems(cacheDir), fresh);
  assert.equal(stale.map((f) => existsSync(f)), [false, true, true, true], 'the least recently used other verdicts are pruned');
  assert.ok(existsSync(join(cacheDir, kept[0])), 'this code\'s verdicts are kept');
});

test('the cache lives in node_modules/.cache/catalogue-gateway (never the temp folder); GATEWAY_CACHE_DIR moves it', () => {
  assert.is(defaultCacheDir(), join(ROOT, 'node_modules', '.cache', 'catalogue-gateway'));
  const tmp = tempDir('cache-tmpdir-');
  const moved = cacheDirWithParses('cache-moved-');
  const load = (env: NodeJS.ProcessEnv) => {
    const script = `import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist/src/catalogue/load.js')).href)}).then((m) => m.loadCatalogue())`;
    const { GATEWAY_CACHE_DIR: _ignored, ...rest } = process.env;
    const r = spawnSync(process.execPath, [...NODE_FLAGS, '-e', script], { env: { ...rest, TMPDIR: tmp, ...env }, encoding: 'utf8' });
    assert.is(r.status, 0, r.stderr);
  };
  load({});
  assert.equal(readdirSync(tmp), [], 'nothing written to the temp folder');
  assert.ok(readdirSync(defaultCacheDir()).some((f) => /^catalogue-[0-9a-f]{12}-[0-9a-f]{32}\.json$/.test(f)), 'the cache file is in node_modules/.cache/catalogue-gateway');
  // The variable is a setting (src/settings.ts): the gateway and the catalogue tools pass it to the loader.
  const { GATEWAY_CACHE_DIR: _unset, ...rest } = process.env;
  const lint = spawnSync(process.execPath, [...NODE_FLAGS, join(ROOT, 'dist/tools/catalogue.js'), 'lint', '--quiet'], { env: { ...rest, TMPDIR: tmp, GATEWAY_CACHE_DIR: moved }, encoding: 'utf8' });
  assert.is(lint.status, 0, lint.stderr);
  assert.is(readdirSync(moved).filter((f) => f.startsWith('catalogue-')).length, 1, 'GATEWAY_CACHE_DIR holds it');
  assert.equal(readdirSync(tmp), []);
});

test.run();
