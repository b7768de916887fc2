// Drift from live traffic: operations clients call that the catalogue does not have, and upstream
// answers that say an operation or a parameter the catalogue holds alive does not exist, listed by
// GET /_gateway/drift and counted by gateway_drift_total; one warn line per new entry;
// `npm run catalogue -- drift` turns the list into a to-do list. The bounds under a flood and
// --workers: drift-processes.test.ts.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { resolveService } from '../../src/catalogue/resolve.js';
import { createParamAjv } from '../../src/catalogue/validators.js';
import { Drift, type DriftReport } from '../../src/gateway/drift/drift.js';
import { mergeReports } from '../../src/gateway/drift/drift-merge.js';
import { WsApiChecker } from '../../src/gateway/websocket/frames.js';
import { StreamMatcher } from '../../src/gateway/websocket/stream-names.js';
import type { RunningGateway } from '../../src/server.js';
import { API_KEY, gatewayAt } from '../support/gateway.js';
import { NODE_FLAGS, ROOT, startUpstream, type Upstream } from '../support/processes.js';
import { tempDir } from '../support/temp.js';
import { runTool } from '../support/tools.js';
import { catalogueFolder, problemsOf } from '../catalogue/folder.js';

const test = suite('drift');
const run = promisify(execFile);
let upstream: Upstream;
let gw: RunningGateway;
test.before(async () => {
  upstream = await startUpstream();
  gw = await gatewayAt('3.12.0', upstream.url);
});
test.after(async () => { await gw.close(); await upstream.stop(); });

const report = async (g = gw): Promise<DriftReport> => (await (await fetch(`${g.url}/_gateway/drift`)).json()) as DriftReport;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

test('an unknown operation called 3 times is listed once with count 3, first and last seen; its query is not kept', async () => {
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${gw.url}/api/v3/driftProbe?symbol=BTCUSDT&signature=deadbeef${i}`, { headers: { 'x-mbx-apikey': API_KEY } });
    assert.is(res.status, 404);
    await res.text();
  }
  const r = await report();
  const e = r.unknownOperations.entries.find((x) => x.operation === 'GET /api/v3/driftProbe');
  assert.ok(e, JSON.stringify(r.unknownOperations.entries));
  assert.is(e.count, 3);
  assert.is(e.surface, 'rest');
  assert.is(e.service, 'exchange');
  assert.match(e.firstSeen, ISO);
  assert.ok(e.firstSeen <= e.lastSeen);
  const text = JSON.stringify(r);
  assert.not.ok(text.includes('deadbeef') || text.includes(API_KEY) || text.includes('symbol='), 'no query, signature or key is kept');
  // A method the path does not have is an operation the catalogue does not have too (405).
  const del = await fetch(`${gw.url}/api/v3/ping`, { method: 'DELETE' });
  assert.is(del.status, 405);
  assert.ok((await report()).unknownOperations.entries.some((x) => x.operation === 'DELETE /api/v3/ping'));
  // The admin plane's rules: no cross-site page reads it.
  const page = await fetch(`${gw.url}/_gateway/drift`, { headers: { origin: 'https://evil.example' } });
  assert.is(page.status, 403);
});

test('what the catalogue knows is not drift: an endpoint removed or not yet added at the pin, the root, the admin routes', async () => {
  const before = (await report()).unknownOperations.total;
  // Removed in 3.9.0, before the pin: the catalogue has it, the answer says when it went.
  const gone = await fetch(`${gw.url}/sapi/v1/blvt/tokenInfo`);
  assert.is(gone.status, 410);
  await gone.text();
  await (await fetch(`${gw.url}/_gateway/nothing`)).text();
  const root = await fetch(`${gw.url}/`, { redirect: 'manual' }); // GitHub's API root in the default catalogue
  assert.ok(root.status === 200 || root.status === 302);
  await root.text();
  assert.is((await report()).unknownOperations.total, before);
});

test("an upstream 404 with no code for an operation alive at the upstream's release is a contradiction; -1104 names the parameters sent, never their values", async () => {
  const ping = await fetch(`${gw.url}/api/v3/ping`, { headers: { 'x-test-error': '404' } });
  assert.is(ping.status, 404, 'the upstream answer is relayed as it came');
  await ping.text();
  const depth = await fetch(`${gw.url}/api/v3/depth?symbol=BTCUSDT&limit=5`, { headers: { 'x-test-error': '400 -1104' } });
  assert.is(depth.status, 400);
  await depth.text();
  for (const code of ['-1121', '-1102', '-1101']) { // bad symbol, missing, too many: none says that something does not exist
    await (await fetch(`${gw.url}/api/v3/depth?symbol=BTCUSDT`, { headers: { 'x-test-error': `400 ${code}` } })).text();
  }
  await (await fetch(`${gw.url}/api/v3/time`, { headers: { 'x-test-error': '400' } })).text(); // a 400 with no code
  const r = await report();
  const c = r.contradictions.entries;
  assert.is(c.length, 2, JSON.stringify(c));
  const op = c.find((x) => x.says === 'unknown operation')!;
  assert.equal({ operation: op.operation, status: op.status, code: op.code, service: op.service, count: op.count }, { operation: 'GET /api/v3/ping', status: 404, code: null, service: 'exchange', count: 1 });
  const upstreamRelease = gw.gateway.program.migrate?.upstreamRelease.get('exchange');
  assert.ok(upstreamRelease);
  assert.is(op.release, upstreamRelease, "judged at the upstream's release, not the pin");
  const param = c.find((x) => x.says === 'unknown parameter')!;
  assert.equal({ operation: param.operation, code: param.code, parameters: param.parameters }, { operation: 'GET /api/v3/depth', code: -1104, parameters: ['limit', 'symbol'] });
  assert.not.ok(JSON.stringify(r).includes('BTCUSDT'), 'parameter values are never kept');
  const metrics = await (await fetch(`${gw.url}/_gateway/metrics`)).text();
  assert.match(metrics, /^gateway_drift_total\{kind="upstream_contradiction"\} 2$/m);
});

test('one warn line per new entry, never again for it; one more when a table is full', () => {
  const lines: string[] = [];
  const drift = new Drift({ warn: (m: string) => { lines.push(m); } }, { maxEntries: 3 });
  for (let i = 0; i < 5; i++) drift.unknownOperation('rest', 'GET', '/api/v3/a', 'exchange');
  assert.is(lines.length, 1);
  assert.match(lines[0], 'GET /api/v3/a');
  for (let i = 0; i < 10; i++) drift.unknownOperation('rest', 'GET', `/api/v3/n${i}`, 'exchange');
  assert.is(lines.length, 3 + 1, 'two more entries fit, then one line says the table is full');
  assert.match(lines[3], 'only counted');
  const r = drift.snapshot();
  assert.is(r.unknownOperations.entries.length, 3);
  assert.is(r.unknownOperations.overflow, 8);
  assert.is(r.unknownOperations.total, 15);
  assert.is(r.unknownOperations.entries[0].operation, 'GET /api/v3/a', 'most called first');
});

test('websocket-API methods and stream names the catalogue knows at no release are counted; known ones are not', () => {
  const { catalogue } = loadCatalogue();
  const view = resolveService(catalogue.services.find((s) => s.id === 'exchange')!, '3.7.0');
  const drift = new Drift({ warn: () => {} });
  const checker = new WsApiChecker(view, createParamAjv(), false);
  checker.unknown = (name) => drift.unknownOperation('ws-api', '', name, 'exchange');
  assert.ok(checker.check(Buffer.from('{"id":1,"method":"nosuch.method","params":{}}')));
  assert.ok(checker.check(Buffer.from('{"id":2,"method":"orderList.place.oco","params":{}}')), 'added in 3.8.0, after the pin: refused, not drift');
  const matcher = new StreamMatcher(view);
  const unknown = matcher.check('btcusdt@nosuchstream');
  assert.ok(!unknown.ok && unknown.unknown);
  assert.ok(matcher.check('btcusdt@trade').ok);
  // What counts them on a connection (context.ts): the symbol or listen key before '@' is never kept.
  drift.unknownOperation('stream', '', 'btcusdt@nosuchstream', 'exchange');
  drift.unknownOperation('stream', '', 'pqia91ma19a5s61cv6a81va65sdf19v8a65a1a5s61cv6a81va65sdf19v8a65a1', 'exchange');
  const r = drift.snapshot();
  assert.equal(r.unknownOperations.entries.map((e) => e.operation), ['ws-api nosuch.method', 'stream <…>@nosuchstream', 'stream <…>']);
});

test('errors.upstreamUnknown is checked at load: "no code" needs a status, one answer cannot mean both', () => {
  const dir = catalogueFolder({
    'demo/service.yaml': [
      'id: demo', 'title: Demo', 'kind: proxy', "upstreams: { rest: 'http://127.0.0.1:1' }",
      'errors:', '  envelope: code-msg', '  codes: { unknown: -1 }', '  upstreamUnknown:',
      '    operation: [{ code: none }, { status: 404, code: -5 }]', '    parameter: [{ status: 404, code: -5 }]', '    source: a test', '',
    ].join('\n'),
    'demo/endpoints/a.yaml': 'module: a\nendpoints:\n  - { method: GET, path: /a }\n',
  }, 'cat-drift-');
  const problems = problemsOf(dir).join('\n');
  assert.match(problems, 'code none needs a status');
  assert.match(problems, 'listed under both operation and parameter');
});

test('drift tool: a saved answer becomes a to-do list, most called first (text and json)', async () => {
  const file = join(tempDir('drift-'), 'drift.json');
  writeFileSync(file, JSON.stringify(await report()));
  const text = runTool('catalogue', ['drift', file]);
  assert.is(text.status, 0, text.stderr);
  const lines = text.stdout.split('\n');
  assert.match(lines[0], /^add to the catalogue: GET \/api\/v3\/driftProbe \(service exchange\) \(3 calls, first \S+, last \S+\)$/);
  assert.ok(lines.some((l) => /^upstream says GET \/api\/v3\/ping does not exist at \S+ \(HTTP 404, no code\): check removed: of GET \/api\/v3\/ping/.test(l)), text.stdout);
  assert.ok(lines.some((l) => l.includes('catalogue parameters sent: limit, symbol')), text.stdout);
  const json = runTool('catalogue', ['drift', file, '--format', 'json']);
  const out = JSON.parse(json.stdout) as { actions: Array<{ action: string; what: string; count: number }> };
  assert.equal(out.actions.map((a) => a.action).slice(0, 1), ['add']);
  assert.ok(out.actions.some((a) => a.action === 'check' && a.count === 1));
  const wrong = join(tempDir('drift-'), 'other.json');
  writeFileSync(wrong, '{"status":"ok"}');
  const bad = runTool('catalogue', ['drift', wrong]);
  assert.is(bad.status, 2);
  assert.match(bad.stderr, 'is not a GET /_gateway/drift answer');
});

test("drift tool: reads a running gateway's GET /_gateway/drift by its URL", async () => {
  const r = await run(process.execPath, [...NODE_FLAGS, join(ROOT, 'dist/tools/catalogue.js'), 'drift', gw.url], { cwd: ROOT, timeout: 30_000 });
  assert.match(r.stdout, /^add to the catalogue: GET \/api\/v3\/driftProbe \(service exchange\) \(3 calls, /m);
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise((resolve) => closed.close(resolve));
  const refused = await run(process.execPath, [...NODE_FLAGS, join(ROOT, 'dist/tools/catalogue.js'), 'drift', `http://127.0.0.1:${port}`], { cwd: ROOT, timeout: 30_000 })
    .then(() => ({ code: 0, stderr: '' }), (e: { code: number; stderr: string }) => e);
  assert.is(refused.code, 2);
  assert.is(refused.stderr, `error: cannot reach http://127.0.0.1:${port}/_gateway/drift: ECONNREFUSED\n`);
});

test('merged tables keep one table\'s bound: entries added up, the least counted beyond it counted as overflow', () => {
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
  const one = (ops: Array<[string, number, number]>, overflow: number) => ({
    since: at(0), bounds: { entries: 2, nameLength: 128 },
    unknownOperations: { total: ops.reduce((n, [, c]) => n + c, 0) + overflow, overflow, entries: ops.map(([operation, count, t]) => ({ surface: 'rest' as const, operation, service: 'exchange', count, firstSeen: at(t), lastSeen: at(t + 1) })) },
    contradictions: { total: 0, overflow: 0, entries: [] },
  });
  const m = mergeReports([one([['GET /a', 5, 3], ['GET /b', 1, 4]], 2), one([['GET /a', 2, 1], ['GET /c', 3, 5]], 0)], { answered: 2, of: 2 });
  assert.equal(m.unknownOperations.entries.map((e) => [e.operation, e.count, e.firstSeen, e.lastSeen]), [['GET /a', 7, at(1), at(4)], ['GET /c', 3, at(5), at(6)]]);
  assert.is(m.unknownOperations.overflow, 2 + 1, 'the overflows and the entry beyond the bound');
  assert.is(m.unknownOperations.total, 13);
});

test.run();
