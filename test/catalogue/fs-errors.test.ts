// File-system trouble in a catalogue folder — a link loop, a link out of the folder, a link to a
// folder, a dangling link, a FIFO under a catalogue name, a file gone between listing and reading,
// a folder that does not exist — is a `file:0: problem` naming the file, at load, in lint and diff
// (exit 2: the input cannot be read) and on reload (refused, the old program kept). Before, a link
// loop ended lint and diff with a raw ELOOP stack and exit 1 ("breaking change" under --fail-on).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { listCatalogueFiles, readCatalogueFiles } from '../../src/catalogue/catalogue-files.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { loadCatalogueOffLoop } from '../../src/catalogue/load-in-worker.js';
import { CatalogueError, CatalogueReadError, formatProblem, type Problem } from '../../src/catalogue/problems.js';
import { createLogger } from '../../src/log.js';
import { gatewayAt } from '../support/gateway.js';
import { ROOT, startUpstream, type Upstream, NODE_FLAGS } from '../support/processes.js';
import { tempDir } from '../support/temp.js';
import { shippedCopy } from './folder.js';

const test = suite('catalogue file-system errors');

/** A copy of the shipped catalogue's exchange, to break. */
const copy = (): string => shippedCopy('fs-errors-');

const shown = (dir: string, rel: string) => relative(process.cwd(), join(dir, rel));

function readProblems(dir: string): string[] {
  try {
    loadCatalogue(dir, { cacheDir: false });
  } catch (e) {
    assert.instance(e, CatalogueReadError);
    return (e as CatalogueError).problems.map(formatProblem);
  }
  assert.unreachable('the catalogue should not load');
  return [];
}

function run(tool: 'catalogue' | 'diff-releases', args: string[]) {
  return spawnSync(process.execPath, [...NODE_FLAGS, join(ROOT, `dist/tools/${tool}.js`), ...args], { encoding: 'utf8', timeout: 60_000 });
}

test('links: loops, links out of the folder, links to folders read anyway and dangling links are problems; a file link inside is read', () => {
  const dir = copy();
  const ep = join(dir, 'exchange/endpoints');
  symlinkSync('../endpoints', join(ep, 'self')); // a loop through a folder link
  symlinkSync('b.yaml', join(ep, 'a.yaml')); // a loop of file links
  symlinkSync('a.yaml', join(ep, 'b.yaml'));
  symlinkSync('/etc/passwd', join(ep, 'passwd.yaml'));
  symlinkSync('/etc', join(dir, 'exchange/etc'));
  symlinkSync(join(dir, 'missing.yaml'), join(ep, 'dangling.yaml'));
  symlinkSync('/etc/hostname', join(ep, 'README')); // not a catalogue file name: never read, no problem
  const problems = readProblems(dir);
  assert.equal(problems, [
    `${shown(dir, 'exchange/endpoints/a.yaml')}:0: cannot follow the link: ELOOP (a loop of symbolic links)`,
    `${shown(dir, 'exchange/endpoints/b.yaml')}:0: cannot follow the link: ELOOP (a loop of symbolic links)`,
    `${shown(dir, 'exchange/endpoints/dangling.yaml')}:0: cannot follow the link: ENOENT (no such file or folder: gone, or a link to nothing)`,
    `${shown(dir, 'exchange/endpoints/passwd.yaml')}:0: the link leads out of the catalogue folder (to /etc/passwd); not followed`,
    `${shown(dir, 'exchange/endpoints/self')}:0: a link to a folder the catalogue reads already (exchange/endpoints) is not followed: it would loop or read files twice`,
    `${shown(dir, 'exchange/etc')}:0: the link leads out of the catalogue folder (to /etc); not followed`,
  ]);
  // A link to a file inside the folder is read as that file.
  const ok = copy();
  mkdirSync(join(ok, 'outside'));
  const market = join(ok, 'exchange/endpoints/market.yaml');
  cpSync(market, join(ok, 'outside/market.yaml'));
  rmSync(market);
  symlinkSync('../../outside/market.yaml', market);
  rmSync(join(ok, 'outside'), { recursive: true, force: true });
  assert.match(readProblems(ok).join('\n'), /market\.yaml:0: cannot follow the link: ENOENT/);
  mkdirSync(join(ok, '.shared')); // a dot-folder is not walked, but a link into it is inside the catalogue
  cpSync(join(ROOT, 'catalogue/exchange/endpoints/market.yaml'), join(ok, '.shared/market.yaml'));
  rmSync(market);
  symlinkSync('../../.shared/market.yaml', market);
  const loaded = loadCatalogue(ok, { modelCache: false }).catalogue; // kept parses: only the links are new
  assert.ok(loaded.services[0].endpoints.some((e) => e.key === 'GET /api/v3/klines'), 'the linked market.yaml was read');
});

test('a ConfigMap volume layout (top-level links into a hidden, atomically swapped folder) loads; a second link to one folder is refused', () => {
  // What kubelet writes: the files in ..<timestamp>/, ..data -> it, and one link per top-level entry through ..data.
  const dir = tempDir('fs-errors-configmap-');
  cpSync(join(ROOT, 'catalogue'), join(dir, '..2026_11_27_06_00_00.1'), { recursive: true });
  symlinkSync('..2026_11_27_06_00_00.1', join(dir, '..data'));
  for (const entry of ['schema', 'exchange', 'github', 'tx-examples']) symlinkSync(`..data/${entry}`, join(dir, entry));
  const shipped = loadCatalogue(join(ROOT, 'catalogue'), { modelCache: false });
  const mounted = loadCatalogue(dir, { modelCache: false });
  assert.is(mounted.hash, shipped.hash, 'the same files, the same catalogue');
  assert.is(mounted.catalogue.services.length, 3);
  symlinkSync('..data/exchange', join(dir, 'exchange-again'));
  symlinkSync('..', join(dir, '..data/exchange/endpoints/up')); // a loop through the hidden folder
  const problems = readProblems(dir);
  assert.ok(problems.includes(`${shown(dir, 'exchange-again')}:0: a link to a folder the catalogue reads already (..2026_11_27_06_00_00.1/exchange) is not followed: it would loop or read files twice`), problems.join('\n'));
  assert.ok(problems.includes(`${shown(dir, 'exchange/endpoints/up')}:0: a link to a folder the catalogue reads already (..2026_11_27_06_00_00.1/exchange) is not followed: it would loop or read files twice`), problems.join('\n'));
  assert.is(problems.length, 2, problems.join('\n'));
});

test('a FIFO under a catalogue name is refused at once (no read that never returns); a file gone before its read is named', () => {
  const dir = copy();
  const fifo = join(dir, 'exchange/endpoints/fifo.yaml');
  assert.is(spawnSync('mkfifo', [fifo]).status, 0);
  assert.equal(readProblems(dir), [`${shown(dir, 'exchange/endpoints/fifo.yaml')}:0: not a regular file; a catalogue file must be one`]);
  unlinkSync(fifo);
  const problems: Problem[] = [];
  const names = listCatalogueFiles(dir, problems);
  assert.ok(names.includes('exchange/enums.yaml'));
  rmSync(join(dir, 'exchange/enums.yaml')); // gone between the listing and the read (an editor's save, a checkout)
  const bytes = readCatalogueFiles(dir, names, problems);
  assert.equal(problems.map(formatProblem), [`${shown(dir, 'exchange/enums.yaml')}:0: cannot read the file: ENOENT (no such file or folder: gone, or a link to nothing)`]);
  assert.is(bytes.size, names.length - 1);
  assert.equal(readProblems(join(dir, 'nowhere')), [`${shown(dir, 'nowhere')}:0: cannot read the catalogue folder: ENOENT (no such file or folder: gone, or a link to nothing)`]);
  assert.match(readProblems(join(dir, 'exchange/service.yaml')).join(), /service\.yaml:0: cannot read the catalogue folder: ENOTDIR/);
});

test('lint and diff: file:line problems and exit 2, never a stack; with --fail-on too', () => {
  const dir = copy();
  symlinkSync('../endpoints', join(dir, 'exchange/endpoints/self'));
  symlinkSync('loop.yaml', join(dir, 'exchange/loop.yaml'));
  const lint = run('catalogue', ['lint', '--catalogue', dir]);
  assert.is(lint.status, 2, lint.stdout + lint.stderr);
  assert.match(lint.stdout, /^error: .*exchange\/endpoints\/self:0: a link to a folder the catalogue reads already/m);
  assert.match(lint.stdout, /^error: .*exchange\/loop\.yaml:0: cannot follow the link: ELOOP/m);
  assert.is(lint.stderr, '');
  const good = join(ROOT, 'catalogue');
  for (const args of [['--catalogue', dir, '3.5.1', '3.6.0'], ['--catalogue', good, '--base', dir], ['--catalogue', dir, '--base', good]]) {
    const diff = run('diff-releases', [...args, '--fail-on', 'breaking']);
    assert.is(diff.status, 2, `${args.join(' ')}: ${diff.stdout}${diff.stderr}`);
    assert.match(diff.stderr, /exchange\/endpoints\/self:0: a link to a folder the catalogue reads already \(exchange\/endpoints\) is not followed/);
    assert.not.match(diff.stderr, /\n\s+at /, 'no stack');
  }
  const endpoints = run('catalogue', ['endpoints', '--catalogue', dir]);
  assert.is(endpoints.status, 2, endpoints.stderr);
  assert.match(endpoints.stderr, /exchange\/loop\.yaml:0: cannot follow the link: ELOOP/);
});

let upstream: Upstream;
test.before(async () => { upstream = await startUpstream({}); });
test.after(async () => { await upstream.stop(); });

test('a reload of a folder with a link loop is refused with the problem; the old program keeps serving', async () => {
  const dir = copy();
  const gw = await gatewayAt('3.12.0', upstream.url, ['--catalogue', dir], { logger: createLogger('silent') });
  try {
    symlinkSync('../endpoints', join(dir, 'exchange/endpoints/self'));
    symlinkSync('/etc', join(dir, 'exchange/etc'));
    const r = await gw.reload('test');
    assert.is(r.ok, false, JSON.stringify(r));
    assert.match(r.problems!.join('\n'), /exchange\/endpoints\/self:0: a link to a folder the catalogue reads already \(exchange\/endpoints\) is not followed/);
    assert.match(r.problems!.join('\n'), /exchange\/etc:0: the link leads out of the catalogue folder/);
    assert.is((await fetch(`${gw.url}/api/v3/ping`)).status, 200, 'the old program keeps serving');
    // And through the loader the reload is moving to.
    const refused = await loadCatalogueOffLoop(dir, { cacheDir: false }).then(() => null, (e: unknown) => e);
    assert.instance(refused, CatalogueReadError);
    assert.match((refused as CatalogueError).problems.map(formatProblem).join('\n'), /exchange\/etc:0: the link leads out/);
  } finally {
    await gw.close();
  }
});

test.run();
