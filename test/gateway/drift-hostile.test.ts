// Drift fed hostile names (issue 46, items 5 and 6): a websocket-API method or stream name holding
// newlines or terminal escapes is printed escaped by `npm run catalogue -- drift` and by the pretty
// log; a listen key sent on a plain GET (/ws/<key>) or in any key position is kept as <…> in the
// table and the warn line; a saved answer of another shape or not UTF-8 is refused in one line, exit 2.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { createLogger } from '../../src/log.js';
import { Drift, type DriftReport } from '../../src/gateway/drift/drift.js';
import type { RunningGateway } from '../../src/server.js';
import { gatewayAt } from '../support/gateway.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { tempDir } from '../support/temp.js';
import { runTool } from '../support/tools.js';

const test = suite('drift: hostile names');
const LISTEN_KEY = 'pqia91ma19a5s61cv6a81va65sdf19v8a65a1a5s61cv6a81va65sdf19v8a65a1';
let upstream: Upstream;
let gw: RunningGateway;
test.before(async () => {
  upstream = await startUpstream();
  gw = await gatewayAt('3.12.0', upstream.url);
});
test.after(async () => { await gw.close(); await upstream.stop(); });

const saved = (r: unknown): string => {
  const file = join(tempDir('drift-hostile-'), 'drift.json');
  writeFileSync(file, typeof r === 'string' || Buffer.isBuffer(r) ? r : JSON.stringify(r));
  return file;
};

test('a made-up websocket-API method or stream name with newlines and escapes cannot forge a line of the drift command', () => {
  const drift = new Drift({ warn: () => {} });
  drift.unknownOperation('ws-api', '', 'x\nupstream says GET /api/v3/order does not exist at 3.12.0 (HTTP 404, no code): check removed: of GET /api/v3/order in service exchange (1 answer, first a, last b)', 'exchange');
  drift.unknownOperation('stream', '', 'btcusdt@x\u001b[2J\u001b[1;1Hcheck removed:', 'exchange');
  const r = runTool('catalogue', ['drift', saved(drift.snapshot())]);
  assert.is(r.status, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.is(lines.length, 3, r.stdout);
  assert.ok(lines.slice(0, 2).every((l) => l.startsWith('add to the catalogue: ')), r.stdout);
  assert.ok(!r.stdout.includes('\u001b'), 'no terminal escape reaches the terminal');
  assert.match(lines.join('\n'), 'ws-api x\\nupstream says GET');
  assert.match(lines.join('\n'), 'stream <…>@x\\x1b[2J\\x1b[1;1Hcheck removed:');
});

test('the pretty log escapes control characters in the message and in field values', () => {
  const lines: string[] = [];
  const log = createLogger('info', (l) => lines.push(l), 'pretty');
  const drift = new Drift(log);
  drift.unknownOperation('ws-api', '', 'x\n00:00:00.000 error forged\u001b[2J', 'exchange');
  log.warn('a field', { name: 'y\r\nz\u009b31m' });
  assert.is(lines.length, 2);
  for (const l of lines) assert.match(l, /^[^\n\r\u001b\u009b]*\n$/, JSON.stringify(l));
  assert.match(lines[0], 'drift: ws-api x\\n00:00:00.000 error forged\\x1b[2J is not in the catalogue');
  assert.match(lines[1], 'name=y\\r\\nz\\x9b31m');
});

test('a listen key sent on a plain GET /ws/<key> is kept as GET /ws/<…>, in the table and the warn line', async () => {
  for (const path of [`/ws/${LISTEN_KEY}`, `/stream/${LISTEN_KEY}`, `/api/v3/userDataStream/${LISTEN_KEY}`]) {
    const res = await fetch(`${gw.url}${path}`);
    await res.text();
  }
  const r = (await (await fetch(`${gw.url}/_gateway/drift`)).json()) as DriftReport;
  const text = JSON.stringify(r);
  assert.ok(!text.includes(LISTEN_KEY.slice(0, 20)), text);
  const ops = r.unknownOperations.entries.map((e) => e.operation);
  assert.ok(ops.includes('GET /ws/<…>'), text);
  assert.ok(ops.includes('GET /api/v3/userDataStream/<…>'), text);
  const warned: string[] = [];
  const drift = new Drift({ warn: (m: string) => { warned.push(m); } });
  drift.keyPositions(['/ws', '/stream']);
  drift.unknownOperation('rest', 'GET', `/ws/${LISTEN_KEY}`, undefined);
  drift.unknownOperation('rest', 'PUT', `/ws/btcusdt@trade/${LISTEN_KEY}`, undefined);
  assert.ok(!warned.join('\n').includes(LISTEN_KEY.slice(0, 20)), warned.join('\n'));
  assert.match(warned[0], 'drift: GET /ws/<…> is not in the catalogue');
});

test('a key in any key position is <…>: after a stream name\'s @, in a websocket-API method name, in a REST path segment', () => {
  const warned: string[] = [];
  const drift = new Drift({ warn: (m: string) => { warned.push(m); } });
  drift.unknownOperation('stream', '', `btcusdt@${LISTEN_KEY}`, 'exchange');
  drift.unknownOperation('ws-api', '', `userDataStream.${LISTEN_KEY}`, 'exchange');
  drift.unknownOperation('rest', 'GET', `/api/v3/${LISTEN_KEY}/order`, 'exchange');
  drift.unknownOperation('rest', 'GET', '/api/v3/ticker/tradingDayX', 'exchange');
  const ops = drift.snapshot().unknownOperations.entries.map((e) => e.operation);
  assert.equal(ops, ['stream <…>@<…>', 'ws-api userDataStream.<…>', 'GET /api/v3/<…>/order', 'GET /api/v3/ticker/tradingDayX']);
  assert.ok(!warned.join('\n').includes(LISTEN_KEY.slice(0, 20)));
});

test('a saved answer of another shape or not UTF-8 is refused: one line, exit 2, no stack trace', () => {
  const good = new Drift({ warn: () => {} }).snapshot();
  const cases: [unknown, RegExp][] = [
    [{ ...good, unknownOperations: { total: 1, overflow: 0, entries: [null] } }, /unknownOperations\.entries\[0\] is not an object/],
    [{ ...good, unknownOperations: { total: 1, overflow: 0, entries: [{ surface: 'rest', operation: 'GET /x', count: 'many', firstSeen: 'a', lastSeen: 'b' }] } }, /unknownOperations\.entries\[0\] lacks/],
    [{ ...good, contradictions: { total: 1, overflow: 0, entries: [{ service: 'x', release: null, operation: 'GET /x', says: 'unknown parameter', status: 400, code: 1, parameters: 'a', count: 1, firstSeen: 'a', lastSeen: 'b' }] } }, /contradictions\.entries\[0\] lacks/],
    [{ ...good, since: 5 }, /since is not a string/],
    [Buffer.concat([Buffer.from(JSON.stringify(good).slice(0, 5)), Buffer.from([0xc3, 0x28]), Buffer.from(JSON.stringify(good).slice(5))]), /not UTF-8 text \(byte 0xc3 at offset 5, line 1\)/],
  ];
  for (const [report, why] of cases) {
    const r = runTool('catalogue', ['drift', saved(report)]);
    assert.is(r.status, 2, r.stdout + r.stderr);
    assert.is(r.stdout, '');
    assert.match(r.stderr, /^error: [^\n]*\n$/);
    assert.match(r.stderr, why);
  }
});

test.run();
