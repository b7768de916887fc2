// Request ids and trace context: the client's X-Request-Id when well-formed, else a new one; echoed
// on every answer (proxied, refused, admin), forwarded upstream and logged in the access line. A
// valid W3C traceparent is forwarded as is; an absent or invalid one starts a new trace.
import { connect } from 'node:net';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { newTraceparent, validTraceparent } from '../../src/gateway/observe/request-id.js';
import { createLogger } from '../../src/log.js';
import type { RunningGateway } from '../../src/server.js';
import { gatewayAt } from '../support/gateway.js';
import { startUpstream, type Upstream } from '../support/processes.js';

const test = suite('request ids and trace context');
let upstream: Upstream;
let gw: RunningGateway;
const lines: string[] = [];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TRACE = /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/;
const access = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.msg === 'access');

test.before(async () => {
  upstream = await startUpstream();
  gw = await gatewayAt('3.12.0', upstream.url, [], { logger: createLogger('info', (l) => lines.push(l)) });
});
test.before.each(async () => { await upstream.reset(); lines.length = 0; });
test.after(async () => {
  await gw.close();
  await upstream.stop();
});

test('a well-formed client id is echoed, forwarded and logged; the traceparent is forwarded unchanged', async () => {
  const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  const res = await fetch(`${gw.url}/api/v3/ping`, { headers: { 'X-Request-Id': 'client.id:42-A_b', traceparent: tp } });
  assert.is(res.status, 200);
  assert.is(res.headers.get('x-request-id'), 'client.id:42-A_b');
  const [rec] = await upstream.records();
  assert.is(rec.headers['x-request-id'], 'client.id:42-A_b');
  assert.is(rec.headers.traceparent, tp);
  const [a] = access();
  assert.is(a.reqId, 'client.id:42-A_b');
  assert.is(a.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
  assert.is(a.route, '/api/v3/ping');
  assert.is(a.status, 200);
  assert.is(a.release, '3.12.0');
  assert.type(a.upstreamMs, 'number');
  assert.ok((a.bytes as number) > 0);
  assert.is(a.pid, process.pid);
});

test('a malformed or missing id is replaced by a new one; a missing or invalid traceparent starts a trace', async () => {
  for (const bad of ['a'.repeat(129), 'has space', 'semi;colon', 'ünïcode', undefined]) {
    await upstream.reset();
    const headers: Record<string, string> = { traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' };
    if (bad !== undefined) headers['X-Request-Id'] = bad;
    const res = await fetch(`${gw.url}/api/v3/ping`, { headers: bad === undefined ? {} : headers });
    const id = res.headers.get('x-request-id')!;
    assert.match(id, UUID, `${bad} → ${id}`);
    const [rec] = await upstream.records();
    assert.is(rec.headers['x-request-id'], id);
    assert.match(rec.headers.traceparent as string, TRACE);
    assert.not.match(rec.headers.traceparent as string, /-0{32}-/);
  }
  const ids = access().map((a) => a.reqId);
  assert.is(new Set(ids).size, 5, 'every generated id is new');
});

test('refusals and admin answers carry the id too, and each has its access line', async () => {
  const cases: [string, RequestInit, number, string][] = [
    ['/api/v3/nosuch?secret=1', {}, 404, 'refused:404'],
    ['/api/v3/ping', { method: 'DELETE' }, 405, 'refused:405'],
    ['/api/v3/klines?symbol=BNBUSDT', {}, 400, '/api/v3/klines'],
    ['/_gateway/health', {}, 200, 'admin:/_gateway/health'],
    ['/_gateway/metrics', {}, 200, 'admin:/_gateway/metrics'],
    ['/_gateway/nosuch', {}, 404, 'admin:unknown'],
    ['/api/v3/klines', { method: 'OPTIONS', headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET' } }, 204, 'preflight'],
  ];
  for (const [i, [path, init, status, route]] of cases.entries()) {
    const id = `case-${i}`;
    const res = await fetch(`${gw.url}${path}`, { ...init, headers: { ...(init.headers as Record<string, string>), 'X-Request-Id': id } });
    await res.arrayBuffer();
    assert.is(res.status, status, path);
    assert.is(res.headers.get('x-request-id'), id, `${path}: id echoed`);
    await new Promise((r) => setTimeout(r, 5)); // the access line is written when the answer's socket write completes
    const mine = access().filter((a) => a.reqId === id);
    assert.is(mine.length, 1, `${path}: one access line`);
    assert.is(mine[0].route, route, path);
    assert.is(mine[0].status, status, path);
    assert.is(mine[0].upstreamMs, undefined, `${path}: never reached the upstream`);
  }
  assert.is((await upstream.records()).length, 0);
  assert.not.ok(lines.some((l) => l.includes('secret=') || l.includes('BNBUSDT')), 'no query in any line');
});

test('traceparent validation follows W3C Trace Context', () => {
  assert.ok(validTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00'));
  assert.ok(validTraceparent('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future'), 'a later version may add fields');
  for (const bad of [
    'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
    '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra', '', undefined,
  ]) assert.not.ok(validTraceparent(bad), String(bad));
  const t = newTraceparent();
  assert.match(t, TRACE);
  assert.ok(validTraceparent(t));
  assert.is.not(newTraceparent(), t);
});

test('each answer on a keep-alive connection logs the bytes it put on the wire, headers included', async () => {
  const url = new URL(gw.url);
  const socket = connect(Number(url.port), url.hostname);
  await new Promise((r) => socket.once('connect', r));
  let buffered = Buffer.alloc(0);
  socket.on('data', (d: Buffer) => { buffered = Buffer.concat([buffered, d]); });
  /** Send one GET and return the size of its whole answer as the client received it. */
  const exchange = async (path: string) => {
    buffered = Buffer.alloc(0);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
    for (;;) {
      const end = buffered.indexOf('\r\n\r\n');
      const length = end < 0 ? NaN : Number(/content-length: (\d+)/i.exec(buffered.subarray(0, end).toString('latin1'))?.[1]);
      if (end >= 0 && buffered.length >= end + 4 + length) return end + 4 + length;
      await new Promise((r) => socket.once('data', r));
    }
  };
  const sizes = [await exchange('/api/v3/ping'), await exchange('/api/v3/time'), await exchange('/api/v3/nope')];
  socket.destroy();
  await new Promise((r) => setTimeout(r, 20)); // the access line is written when the answer's close event runs
  assert.equal(access().map((a) => a.bytes), sizes);
});

test.run();
