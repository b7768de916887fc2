// No upgrade request ends the gateway: malformed subprotocols, fragments, odd keys and versions,
// absolute-form targets, percent escapes, empty stream names, huge headers and clients that hang up
// mid-handshake are each answered (a 400 in the service's envelope where the gateway answers) or
// served, never a crash, never a 500, never a stack in the log. Every upgrade, accepted or refused,
// carries X-Request-Id and has one access line. Requests are written raw on TCP sockets, as a
// hostile client would; the gateway runs as the CLI in a child process, so a crash is an exit this
// test sees rather than the end of the test itself.
import { connect as tcpConnect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { startGatewayProcess, type Proc } from '../support/processes.js';
import { closed, nextMessage, open, sleep, startWsUpstream, type WsUpstream } from './ws-upstream.js';

const test = suite('websocket upgrade errors');
const KEY = 'dGhlIHNhbXBsZSBub25jZQ==';
let upstream: WsUpstream;
let silent: Server;
const silentSockets = new Set<Socket>();
let gw: Proc & { url: string };
let port: number;

test.before(async () => {
  upstream = await startWsUpstream();
  // The websocket-API upstream accepts connections and never answers: an upgrade to /ws-api/v3 stays
  // "connecting" for as long as the test needs (to hang up in the middle of it).
  silent = createServer((s) => { silentSockets.add(s); s.on('close', () => silentSockets.delete(s)); s.on('error', () => {}); });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  gw = await startGatewayProcess([
    '--release', '3.12.0', '--log-level', 'debug', '--upstream', 'exchange=http://127.0.0.1:9',
    '--upstream', `exchange.streams=${upstream.url}`,
    '--upstream', `exchange.wsApi=ws://127.0.0.1:${(silent.address() as AddressInfo).port}/ws-api/v3`,
  ]);
  port = Number(new URL(gw.url).port);
});
test.after(async () => {
  await gw.stop();
  await upstream.stop();
  for (const s of silentSockets) s.destroy();
  await new Promise((r) => silent.close(r));
});

interface Answer {
  status: number;
  head: string;
  body: string;
}

interface Req {
  method?: string;
  /** undefined: the header is left out. */
  upgrade?: string;
  key?: string;
  version?: string;
  /** Further raw header lines. */
  extra?: string[];
}

/** Write one upgrade request on a fresh TCP socket; resolve with the status line's code, head and body. */
function rawUpgrade(target: string, req: Req = {}): Promise<Answer> {
  const { method = 'GET', upgrade = 'websocket', key = KEY, version = '13', extra = [] } = { ...req };
  const lines = [`${method} ${target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: Upgrade'];
  if ('upgrade' in req ? req.upgrade !== undefined : true) lines.push(`Upgrade: ${upgrade}`);
  if ('key' in req ? req.key !== undefined : true) lines.push(`Sec-WebSocket-Key: ${key}`);
  if ('version' in req ? req.version !== undefined : true) lines.push(`Sec-WebSocket-Version: ${version}`);
  lines.push(...extra);
  return new Promise((resolve, reject) => {
    const s = tcpConnect(port, '127.0.0.1', () => s.write(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'));
    let data = Buffer.alloc(0);
    const done = () => {
      clearTimeout(timer);
      s.destroy();
      const text = data.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      if (!status) return reject(new Error(`no HTTP answer to ${method} ${target.slice(0, 80)}: ${JSON.stringify(text.slice(0, 200))}`));
      resolve({ status, head: end < 0 ? text : text.slice(0, end), body: end < 0 ? '' : text.slice(end + 4) });
    };
    s.on('data', (d: Buffer) => {
      data = Buffer.concat([data, d]);
      const text = data.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, end));
      // A 101 has no body; an answer with a length is complete once that much has arrived.
      if (text.startsWith('HTTP/1.1 101') || (length && data.length >= end + 4 + Number(length[1]))) done();
    });
    s.on('close', done);
    s.on('error', () => {});
    const timer = setTimeout(done, 3000);
  });
}

/** A refusal in the service's envelope, naming what was wrong. */
function assertRefused(a: Answer, status: number, msg: RegExp, what: string): void {
  assert.is(a.status, status, `${what}: ${a.head.split('\r\n')[0]} ${a.body}`);
  assert.match(a.head, /\r\nX-Gateway-Release: 3\.12\.0/, `${what}: release header`);
  const body = JSON.parse(a.body) as { code?: unknown; msg?: unknown };
  assert.type(body.code, 'number', `${what}: envelope code`);
  assert.match(String(body.msg), msg, `${what}: message`);
}

const alive = () => gw.child.exitCode === null && gw.child.signalCode === null;

/** A normal stream upgrade, relayed both ways: the process is still serving. */
async function servesNormally(): Promise<void> {
  assert.ok(alive(), `gateway exited:\n${gw.output().slice(-2000)}`);
  upstream.reset();
  const c = await open(`${gw.url.replace(/^http/, 'ws')}/ws/btcusdt@trade`);
  const conn = await upstream.nextConnection();
  conn.ws.send('{"e":"trade"}');
  assert.is((await nextMessage(c.ws)).data.toString(), '{"e":"trade"}');
  c.ws.close();
  await closed(c.ws);
}

test('subprotocols ws would throw on are refused 400, for every route', async () => {
  for (const target of ['/ws/btcusdt@trade', '/stream?streams=btcusdt@trade', '/ws-api/v3']) {
    for (const [value, msg] of [
      ['chat, chat', /'chat' is offered twice/], ['a/b', /'a\/b' is not a token/], ['chat,,x', /'' is not a token/],
      ['', /'' is not a token/], ['a b', /'a b' is not a token/], ['x,x,x', /offered twice/],
    ] as const) {
      assertRefused(await rawUpgrade(target, { extra: [`Sec-WebSocket-Protocol: ${value}`] }), 400, msg, `${target} protocol '${value}'`);
    }
    // Two header lines are one list: a protocol offered in both is a duplicate.
    assertRefused(await rawUpgrade(target, { extra: ['Sec-WebSocket-Protocol: chat', 'Sec-WebSocket-Protocol: chat'] }), 400, /offered twice/, `${target} two headers`);
  }
  await servesNormally();
});

test('a fragment in the request target is refused 400, for every route', async () => {
  for (const target of [
    '/ws/btcusdt@trade#x', '/ws/btcusdt@trade?#', '/ws/btcusdt@trade/#', '/stream?streams=btcusdt@trade#x',
    '/stream?streams=btcusdt@trade&x=#', '/ws-api/v3#', '/ws-api/v3?a#b', 'http://x/ws/btcusdt@trade#',
  ]) {
    assertRefused(await rawUpgrade(target), 400, /a fragment \('#.+'\) is never part of an HTTP request/, target);
  }
  await servesNormally();
});

test('odd keys, versions, methods and upgrade headers are refused 400 in the envelope', async () => {
  const target = '/ws/btcusdt@trade';
  const cases: Array<[string, Req, RegExp]> = [
    ['no key', { key: undefined }, /Sec-WebSocket-Key/],
    ['short key', { key: 'abc' }, /Sec-WebSocket-Key/],
    ['key with bad characters', { key: 'dGhlIHNhbXBsZSBub25jZQ!=' }, /Sec-WebSocket-Key/],
    ['huge key', { key: 'A'.repeat(8000) }, /Sec-WebSocket-Key/],
    ['two keys', { extra: [`Sec-WebSocket-Key: ${KEY}`] }, /Sec-WebSocket-Key/],
    ['no version', { version: undefined }, /Sec-WebSocket-Version ''/],
    ['version 12', { version: '12' }, /Sec-WebSocket-Version '12'/],
    ['two versions', { extra: ['Sec-WebSocket-Version: 13'] }, /Sec-WebSocket-Version '13, 13'/],
    ['huge version', { version: '1'.repeat(8000) }, /Sec-WebSocket-Version/],
    ['POST', { method: 'POST' }, /expected GET/],
    ['Upgrade: h2c', { upgrade: 'h2c' }, /Upgrade: websocket/],
  ];
  for (const [what, req, msg] of cases) assertRefused(await rawUpgrade(target, req), 400, msg, what);
  await servesNormally();
});

test('request-target forms, percent escapes, empty stream names, huge headers: served or refused, never a 500', async () => {
  upstream.reset();
  // Absolute-form is served like its path (and forwarded as the path).
  assert.is((await rawUpgrade('http://x/ws/btcusdt@trade')).status, 101);
  assert.is((await upstream.nextConnection()).url, '/ws/btcusdt@trade');
  assert.is((await rawUpgrade('/ws/btcusdt%40trade')).status, 101, 'an escaped @ is the same stream');
  assert.is((await upstream.nextConnection()).url, '/ws/btcusdt%40trade', 'forwarded byte for byte');
  assertRefused(await rawUpgrade('*'), 400, /Malformed request target '\*'/, 'asterisk-form');
  assertRefused(await rawUpgrade('/ws/%zz'), 400, /malformed percent-encoding/, '/ws/%zz');
  assertRefused(await rawUpgrade('/stream?streams=btcusdt@trade/%E0%A4%A'), 400, /malformed percent-encoding/, 'truncated escape');
  assertRefused(await rawUpgrade('/ws/%00'), 400, /Invalid stream name/, 'NUL stream name');
  assertRefused(await rawUpgrade(`/ws/${'a'.repeat(6000)}`), 400, /Invalid stream name/, 'huge stream name');
  assertRefused(await rawUpgrade('http://x/other'), 404, /No websocket route \/other/, 'absolute-form, unknown path');
  // Whatever the gateway does with these, it answers: a 101, or a 4xx (from the gateway or from Node's parser).
  for (const [target, req] of [
    ['/ws/', {}], ['/ws//', {}], ['/ws/btcusdt@trade//', {}], ['/stream?streams=', {}], ['/stream?streams=//', {}], ['/stream', {}],
    ['127.0.0.1:80', {}], ['/ws/bt\u00e9', {}], ['/ws/btcusdt@trade', { extra: [`X-Filler: ${'f'.repeat(12_000)}`] }],
    ['/ws/btcusdt@trade', { extra: [`X-Filler: ${'f'.repeat(20_000)}`] }],
    ['/ws/btcusdt@trade', { extra: [`Sec-WebSocket-Protocol: ${'p'.repeat(8000)}`] }],
    ['/ws/btcusdt@trade', { extra: ['Sec-WebSocket-Extensions: permessage-deflate; nonsense=;;'] }],
  ] as Array<[string, Req]>) {
    const a = await rawUpgrade(target, req);
    assert.ok(a.status === 101 || (a.status >= 400 && a.status < 500), `${target.slice(0, 40)}: ${a.status} ${a.body.slice(0, 200)}`);
  }
  await servesNormally();
});

test('clients hanging up mid-handshake: no stack, no error, no warning in the log', async () => {
  const before = gw.output().length;
  // 1. While the upstream is being connected (the websocket-API upstream never answers).
  for (let i = 0; i < 5; i++) {
    const s = tcpConnect(port, '127.0.0.1', () => {
      s.write(`GET /ws-api/v3 HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
      setTimeout(() => s.destroy(), 100);
    });
    s.on('error', () => {});
  }
  // 2. Right after the request, racing the gateway's answer; 3. in the middle of the headers; 4. with a reset.
  for (let i = 0; i < 20; i++) {
    const s = tcpConnect(port, '127.0.0.1', () => {
      const full = `GET /ws/btcusdt@trade HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n`;
      if (i % 3 === 0) s.end(full);
      else if (i % 3 === 1) s.end(full.slice(0, 40 + i));
      else { s.write(full); setImmediate(() => s.resetAndDestroy()); }
    });
    s.on('error', () => {});
    s.resume();
  }
  await sleep(1000);
  const log = gw.output().slice(before);
  assert.match(log, /ws \/ws-api\/v3: client hung up before the upstream answered/, 'the hang-up is a debug line');
  assert.not.match(log, /\\n\s+at /, `a stack in the log:\n${log}`); // JSON lines: a stack's newlines are escaped
  assert.not.match(log, /"level":"(warn|error)"/, `a warning or error in the log:\n${log}`);
  await servesNormally();
});

/** The access lines the gateway wrote since `from` (an offset in its output). */
function accessSince(from: number): Record<string, unknown>[] {
  return gw.output().slice(from).split('\n').filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.msg === 'access');
}

test('every upgrade, accepted (101) or refused, echoes X-Request-Id and has one access line with its route template', async () => {
  const listenKey = 'Lk'.repeat(30);
  const from = gw.output().length;
  upstream.reset();
  const cases: [string, string, number, Record<string, unknown>][] = [
    ['up-raw', '/ws/btcusdt@trade', 101, { route: '/ws/<symbol>@trade', streams: '<symbol>@trade', release: '3.12.0' }],
    ['up-combined', '/stream?streams=btcusdt@trade/ethusdt@trade/btcusdt@kline_1m&secret=zz9', 101, { route: '/stream', streams: '<symbol>@trade,<symbol>@kline_<interval>' }],
    // Listen keys were retired upstream (2026.01.21): without a key the gateway cannot feed the stream (docs/user-data.md).
    ['up-listen-key', `/ws/${listenKey}`, 410, { release: '3.12.0' }],
    ['up-bad-stream', '/ws/BTCUSDT@trade?secret=zz9', 400, { route: '/ws', release: '3.12.0' }],
    ['up-no-route', '/nosuch?secret=zz9', 404, { route: 'refused:404' }],
    ['up-fragment', '/ws/btcusdt@trade#zz9', 400, { route: 'refused:400' }],
    ['up-bad-key', '/ws-api/v3', 400, { route: '/ws-api/v3' }],
    ['up-release', '/@3.6.0/ws/btcusdt@trade', 400, { route: '/ws' }],
  ];
  for (const [id, target, status, want] of cases) {
    const a = await rawUpgrade(target, { ...(id === 'up-bad-key' ? { key: 'short' } : {}), extra: [`X-Request-Id: ${id}`, 'traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'] });
    assert.is(a.status, status, `${id}: ${a.head} ${a.body}`);
    assert.match(a.head, new RegExp(`\\r\\nX-Request-Id: ${id}(\\r\\n|$)`), `${id}: id echoed in ${a.head}`);
  }
  // The upstream saw the ids and the trace context of the accepted upgrades.
  const ups = [await upstream.nextConnection(), await upstream.nextConnection()];
  assert.equal(ups.map((c) => c.headers['x-request-id']).sort(), ['up-combined', 'up-raw']);
  assert.ok(ups.every((c) => c.headers.traceparent === '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'));
  // A client hanging up while the (silent) websocket-API upstream connects: 499 on the route.
  await new Promise<void>((resolve) => {
    const s = tcpConnect(port, '127.0.0.1', () => {
      s.write(`GET /ws-api/v3 HTTP/1.1\r\nHost: x\r\nX-Request-Id: up-gone\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
      setTimeout(() => { s.destroy(); resolve(); }, 200);
    });
    s.on('error', () => {});
  });
  await sleep(300);
  const lines = accessSince(from);
  for (const [id, , status, want] of [...cases, ['up-gone', '', 499, { route: '/ws-api/v3' }] as const]) {
    const mine = lines.filter((l) => l.reqId === id);
    assert.is(mine.length, 1, `${id}: one access line in ${JSON.stringify(lines)}`);
    const [l] = mine;
    assert.is(l.status, status, id);
    assert.is(l.method, 'GET', id);
    for (const [k, v] of Object.entries(want)) assert.is(l[k], v, `${id}: ${k} in ${JSON.stringify(l)}`);
    if (id !== 'up-gone') assert.is(l.traceId, '4bf92f3577b34da6a3ce929d0e0e4736', `${id}: the client's trace`);
    assert.type(l.ms, 'number', id);
  }
  assert.type(lines.find((l) => l.reqId === 'up-raw')!.upstreamMs, 'number', 'an accepted upgrade logs its upstream connect time');
  const text = gw.output().slice(from);
  for (const s of ['zz9', 'secret', listenKey, 'btcusdt', 'BTCUSDT']) assert.not.ok(text.includes(s), `"${s}" in the log:\n${text}`);
});

test.run();
