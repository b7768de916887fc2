// Market-stream upgrades: names checked at the pinned release before the upstream is dialled,
// SUBSCRIBE / UNSUBSCRIBE frames checked inside a connection, frames and close codes relayed.
import { request } from 'node:http';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import WebSocket from 'ws';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { findService, resolveService } from '../../src/catalogue/resolve.js';
import { StreamMatcher } from '../../src/gateway/websocket/stream-names.js';
import { routeOf, upstreamUrl, wsApiBase } from '../../src/gateway/websocket/routes.js';
import type { RunningGateway } from '../../src/server.js';
import { until } from '../support/until.js';
import {
  closed, connect, isRefused, nextMessage, open, startWsUpstream, wsGatewayAt, wsUrl, type Refused, type WsUpstream,
} from './ws-upstream.js';

const { catalogue } = loadCatalogue(); // the gateways below load the same (cached) catalogue
const exchange = findService(catalogue, 'exchange');
const matcher = (release: string) => new StreamMatcher(resolveService(exchange, release));

// ------------------------------------------------------------------------------------------------
const names = suite('stream names (matcher)');

names('kline_1s from 1.17.0; the refusal names the enum value and its release', () => {
  const r = matcher('1.16.0').check('btcusdt@kline_1s');
  assert.is(r.ok, false);
  if (!r.ok) assert.match(r.reason, /KlineInterval value 1s was added in 1\.17\.0; this gateway serves 1\.16\.0/);
  assert.is(matcher('1.17.0').check('btcusdt@kline_1s').ok, true);
});

names('+08:00 kline streams (both forms) from 3.10.0', () => {
  for (const n of ['btcusdt@kline_1m@+08:00', 'btcusdtkline_1m+08:00']) {
    const r = matcher('3.9.0').check(n);
    assert.is(r.ok, false, n);
    if (!r.ok) assert.match(r.reason, /was added in 3\.10\.0; this gateway serves 3\.9\.0/);
    assert.is(matcher('3.10.0').check(n).ok, true, n);
  }
});

names('removed and unknown names are explained', () => {
  const gone = matcher('3.12.0').check('!bookTicker');
  assert.is(gone.ok, false);
  if (!gone.ok) assert.match(gone.reason, /stream !bookTicker was removed in 2\.0\.0; this gateway serves 3\.12\.0; use <symbol>@bookTicker/);
  const bad = matcher('3.12.0').check('BTCUSDT@trade');
  assert.is(bad.ok, false);
  if (!bad.ok) assert.match(bad.reason, /matches no stream of the catalogue/);
  const depth = matcher('3.12.0').check('btcusdt@depth7');
  assert.is(depth.ok, false);
  if (!depth.ok) assert.match(depth.reason, /no stream/);
});

names('routes: the catalogue\'s paths: raw, multi-raw, combined (query read raw: + is not a space), ws-api, unknown', () => {
  const paths = { ...exchange.streamPaths, wsApi: exchange.wsApiPath };
  assert.equal(paths, { raw: '/ws', combined: '/stream', wsApi: '/ws-api/v3' }, 'streams.yaml paths, ws-api.yaml path');
  assert.equal(routeOf('/ws/btcusdt@aggTrade', paths), { kind: 'streams', combined: false, names: ['btcusdt@aggTrade'], path: '/ws/btcusdt@aggTrade', query: '' });
  assert.equal((routeOf('/ws/a@trade/b@trade', paths) as { names: string[] }).names, ['a@trade', 'b@trade']);
  assert.equal((routeOf('/stream?streams=btcusdt@kline_1m@+08:00/bnbbtc%40trade&timeUnit=MICROSECOND', paths) as { names: string[] }).names,
    ['btcusdt@kline_1m@+08:00', 'bnbbtc@trade']);
  assert.is(routeOf('/ws-api/v3?timeUnit=MICROSECOND', paths).kind, 'wsApi');
  assert.throws(() => routeOf('/other', paths), /No websocket route \/other; routes: \/ws\/<stream>, \/stream\?streams=<a>\/<b>, \/ws-api\/v3/);
  // Other paths in another catalogue are routed the same way; the exchange's are not hard-wired.
  const other = { raw: '/market/raw', combined: '/market/multi', wsApi: '/api/ws' };
  assert.is(routeOf('/market/raw/btcusdt@trade', other).kind, 'streams');
  assert.is(routeOf('/api/ws', other).kind, 'wsApi');
  assert.throws(() => routeOf('/ws/btcusdt@trade', other), /No websocket route/);
});

names('upstream URLs: both websocket upstreams are base URLs joined with the path and query; the old full websocket-API URL still works', () => {
  const paths = { raw: '/ws', combined: '/stream', wsApi: '/ws-api/v3' };
  const raw = routeOf('/ws/btcusdt@trade?timeUnit=MICROSECOND', paths);
  const api = routeOf('/ws-api/v3/?returnRateLimits=false', paths);
  assert.is(upstreamUrl(raw, 'wss://stream.example:9443', paths), 'wss://stream.example:9443/ws/btcusdt@trade?timeUnit=MICROSECOND');
  assert.is(upstreamUrl(api, 'wss://ws-api.example:443', paths), 'wss://ws-api.example/ws-api/v3?returnRateLimits=false');
  // A base with a path prefix (a relay in front of the upstream): the prefix comes first, for both.
  assert.is(upstreamUrl(raw, 'ws://relay.local:8000/binance/', paths), 'ws://relay.local:8000/binance/ws/btcusdt@trade?timeUnit=MICROSECOND');
  assert.is(upstreamUrl(api, 'ws://relay.local:8000/binance', paths), 'ws://relay.local:8000/binance/ws-api/v3?returnRateLimits=false');
  // The old form: a websocket-API URL already ending with the path is read as its base (not joined twice).
  assert.is(wsApiBase('wss://ws-api.example:443/ws-api/v3', '/ws-api/v3'), 'wss://ws-api.example/');
  assert.is(wsApiBase('ws://relay.local:8000/binance/ws-api/v3/', '/ws-api/v3'), 'ws://relay.local:8000/binance');
  assert.is(wsApiBase('wss://ws-api.example', '/ws-api/v3'), 'wss://ws-api.example', 'a base URL is left as it is');
  assert.is(upstreamUrl(api, wsApiBase('wss://ws-api.example/ws-api/v3?x=1', '/ws-api/v3'), paths), 'wss://ws-api.example/ws-api/v3?x=1&returnRateLimits=false');
});

names.run();

// ------------------------------------------------------------------------------------------------
const test = suite('websocket streams through the gateway');
let upstream: WsUpstream;
const gateways = new Map<string, RunningGateway>();
async function gw(release: string): Promise<RunningGateway> {
  let g = gateways.get(release);
  if (!g) gateways.set(release, (g = await wsGatewayAt(release, upstream)));
  return g;
}

test.before(async () => { upstream = await startWsUpstream(); });
test.before.each(() => { upstream.reset(); upstream.autoAnswer = true; });
test.after(async () => {
  for (const g of gateways.values()) await g.close();
  await upstream.stop();
});

test('btcusdt@kline_1s: refused with 400 at 1.16.0 (never dialled), relayed at 1.17.0', async () => {
  const r = await connect(`${wsUrl(await gw('1.16.0'))}/ws/btcusdt@kline_1s`);
  assert.ok(isRefused(r));
  const ref = r as Refused;
  assert.is(ref.status, 400);
  assert.is(ref.headers['x-gateway-release'], '1.16.0');
  assert.is(ref.body.code, -1130);
  assert.match(ref.body.msg!, /btcusdt@kline_1s.*KlineInterval value 1s was added in 1\.17\.0/);
  assert.is(upstream.connections.length, 0, 'the upstream was never dialled');

  const ok = await open(`${wsUrl(await gw('1.17.0'))}/ws/btcusdt@kline_1s`);
  assert.is(ok.headers['x-gateway-release'], '1.17.0');
  const conn = await upstream.nextConnection();
  assert.is(conn.url, '/ws/btcusdt@kline_1s');
  conn.ws.send('{"e":"kline","s":"BTCUSDT"}');
  const m = await nextMessage(ok.ws);
  assert.is(m.data.toString(), '{"e":"kline","s":"BTCUSDT"}');
  assert.is(m.isBinary, false);
  ok.ws.close();
});

test('btcusdt@kline_1m@+08:00: refused at 3.9.0, relayed from 3.10.0 (raw and combined)', async () => {
  for (const path of ['/ws/btcusdt@kline_1m@+08:00', '/stream?streams=btcusdt@kline_1m@+08:00']) {
    const r = await connect(`${wsUrl(await gw('3.9.0'))}${path}`);
    assert.ok(isRefused(r), path);
    assert.is((r as Refused).status, 400);
    assert.match((r as Refused).body.msg!, /added in 3\.10\.0; this gateway serves 3\.9\.0/);
  }
  assert.is(upstream.connections.length, 0);
  for (const path of ['/ws/btcusdt@kline_1m@+08:00', '/stream?streams=btcusdt@kline_1m@+08:00']) {
    const c = await open(`${wsUrl(await gw('3.10.0'))}${path}`);
    const conn = await upstream.nextConnection();
    assert.is(conn.url, path, 'path and query forwarded byte for byte');
    c.ws.close();
    await closed(c.ws);
  }
});

test('combined stream path with one invalid name is refused, naming it', async () => {
  const r = await connect(`${wsUrl(await gw('3.12.0'))}/stream?streams=btcusdt@aggTrade/btcusdt@kline_2m/bnbbtc@depth5`);
  assert.ok(isRefused(r));
  assert.is((r as Refused).status, 400);
  assert.match((r as Refused).body.msg!, /Invalid stream name 'btcusdt@kline_2m' at 3\.12\.0/);
  assert.is(upstream.connections.length, 0);
  const ok = await open(`${wsUrl(await gw('3.12.0'))}/stream?streams=btcusdt@aggTrade/bnbbtc@depth5@100ms/!ticker_1h@arr`);
  await upstream.nextConnection();
  ok.ws.close();
});

test('SUBSCRIBE with an invalid name: error frame with the id, not forwarded; a valid one is forwarded', async () => {
  const c = await open(`${wsUrl(await gw('1.16.0'))}/ws`);
  const conn = await upstream.nextConnection();
  c.ws.send('{"method":"SUBSCRIBE","params":["btcusdt@aggTrade","btcusdt@kline_1s"],"id":1}');
  const err = JSON.parse((await nextMessage(c.ws)).data.toString());
  assert.equal(Object.keys(err), ['error', 'id']);
  assert.is(err.id, 1);
  assert.is(err.error.code, 2);
  assert.match(err.error.msg, /btcusdt@kline_1s.*added in 1\.17\.0/);
  c.ws.send('{"method":"UNSUBSCRIBE","params":["nope"],"id":"x"}');
  assert.is(JSON.parse((await nextMessage(c.ws)).data.toString()).id, 'x');
  const good = '{"method":"SUBSCRIBE","params":["btcusdt@aggTrade","btcusdt@kline_1m"],"id":2}';
  c.ws.send(good);
  assert.equal(JSON.parse((await nextMessage(c.ws)).data.toString()), { result: null, id: 2 });
  c.ws.send('{"method":"LIST_SUBSCRIPTIONS","id":3}'); // not the gateway's to check
  // Frames on one connection arrive in order: any invalid one forwarded would come before these two.
  await until(() => conn.received.length >= 2);
  assert.equal(conn.received.map((f) => f.data.toString()), [good, '{"method":"LIST_SUBSCRIPTIONS","id":3}'], 'only valid frames reached the upstream');
  c.ws.close();
});

test('binary stays binary, text stays text, bytes identical, both ways', async () => {
  const c = await open(`${wsUrl(await gw('3.12.0'))}/ws/btcusdt@trade`);
  const conn = await upstream.nextConnection();
  const bin = Buffer.from([0, 1, 2, 0xff, 0xfe, 0x80]);
  const text = 'héllo ✓ {"a":1}';
  conn.ws.send(bin, { binary: true });
  conn.ws.send(text);
  const m1 = await nextMessage(c.ws);
  const m2 = await nextMessage(c.ws);
  assert.ok(m1.isBinary);
  assert.ok(Buffer.compare(m1.data, bin) === 0);
  assert.not.ok(m2.isBinary);
  assert.is(m2.data.toString('utf8'), text);
  c.ws.send(bin, { binary: true });
  c.ws.send(text);
  await until(() => conn.received.length >= 2);
  assert.ok(conn.received[0].isBinary && Buffer.compare(conn.received[0].data, bin) === 0);
  assert.ok(!conn.received[1].isBinary && conn.received[1].data.toString() === text);
  c.ws.close();
});

test('pings relayed: an upstream ping reaches the client, whose pong reaches the upstream (and back)', async () => {
  const c = await open(`${wsUrl(await gw('3.12.0'))}/ws/btcusdt@trade`);
  const conn = await upstream.nextConnection();
  const ping = new Promise<Buffer>((r) => c.ws.once('ping', (d) => r(d)));
  const pong = new Promise<Buffer>((r) => conn.ws.once('pong', (d) => r(d)));
  conn.ws.ping('up-1');
  assert.is((await ping).toString(), 'up-1');
  assert.is((await pong).toString(), 'up-1', 'client auto-pong relayed to the upstream');
  const ping2 = new Promise<Buffer>((r) => conn.ws.once('ping', (d) => r(d)));
  const pong2 = new Promise<Buffer>((r) => c.ws.once('pong', (d) => r(d)));
  c.ws.ping('down-1');
  assert.is((await ping2).toString(), 'down-1');
  assert.is((await pong2).toString(), 'down-1');
  c.ws.close();
});

test('close codes: upstream close propagated to the client; client close closes the upstream', async () => {
  const c = await open(`${wsUrl(await gw('3.12.0'))}/ws/btcusdt@trade`);
  const conn = await upstream.nextConnection();
  conn.ws.close(4001, 'upstream says bye');
  assert.equal(await closed(c.ws), { code: 4001, reason: 'upstream says bye' });

  const c2 = await open(`${wsUrl(await gw('3.12.0'))}/ws/btcusdt@trade`);
  const conn2 = await upstream.nextConnection();
  c2.ws.close(1000, 'client done');
  assert.equal(await conn2.closed, { code: 1000, reason: 'client done' });

  const c3 = await open(`${wsUrl(await gw('3.12.0'))}/ws/btcusdt@trade`);
  const conn3 = await upstream.nextConnection();
  conn3.ws.terminate(); // no close frame: the client gets 1011
  assert.is((await closed(c3.ws)).code, 1011);
});

test('unknown path: 404; unreachable upstream: 502 before accepting; bad handshake: 400', async () => {
  const g = await gw('3.12.0');
  const r = await connect(`${wsUrl(g)}/nope`);
  assert.is((r as Refused).status, 404);
  assert.is((r as Refused).body.code, -1020);

  const dead = await wsGatewayAt('3.12.0', { ...upstream, url: 'ws://127.0.0.1:9' }, {}, ['--timeout', '1000']);
  try {
    const r2 = await connect(`${wsUrl(dead)}/ws/btcusdt@trade`);
    assert.is((r2 as Refused).status, 502);
    assert.is((r2 as Refused).body.code, -1001);
    assert.is((r2 as Refused).headers['x-gateway-release'], '3.12.0');
    assert.is(dead.websockets.stats().open, 0);
  } finally {
    await dead.close();
  }

  // No Sec-WebSocket-Key: refused before any upstream connection is spent on it.
  const before = upstream.connections.length;
  const bad = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(`${g.url}/ws/btcusdt@trade`, { headers: { Connection: 'Upgrade', Upgrade: 'websocket' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
  assert.is(bad.status, 400);
  assert.match(bad.body, /Sec-WebSocket-Key/);
  assert.is(upstream.connections.length, before);
});

test('websocket API before 3.0.0rc1: 404 with the release facts', async () => {
  const r = await connect(`${wsUrl(await gw('1.17.0'))}/ws-api/v3`);
  assert.is((r as Refused).status, 404);
  assert.match((r as Refused).body.msg!, /added in 3\.0\.0rc1; this gateway serves 1\.17\.0/);
});

test('websocket counters in /_gateway/metrics; gateway close terminates open websockets and does not hang', async () => {
  const g = await wsGatewayAt('3.12.0', upstream);
  const clients = await Promise.all([1, 2, 3].map(() => open(`${wsUrl(g)}/ws/btcusdt@trade`)));
  for (let i = 0; i < 3; i++) await upstream.nextConnection();
  assert.is(g.websockets.stats().open, 3);
  const refused = await connect(`${wsUrl(g)}/ws/btcusdt@nosuchstream`);
  assert.is((refused as Refused).status, 400);
  const metrics = await (await fetch(`${g.url}/_gateway/metrics`)).text();
  assert.match(metrics, /\ngateway_websocket_open 3\n/);
  assert.match(metrics, /\ngateway_websocket_accepted_total 3\n/);
  assert.match(metrics, /\ngateway_websocket_refused_total 1\n/);
  const started = Date.now();
  await g.close();
  assert.ok(Date.now() - started < 3000, `close took ${Date.now() - started} ms`);
  for (const c of clients) assert.is(c.ws.readyState === WebSocket.CLOSED || c.ws.readyState === WebSocket.CLOSING, true);
  const codes = await Promise.all(clients.map((c) => closed(c.ws)));
  for (const c of codes) assert.ok(c.code === 1001 || c.code === -1, `close code ${c.code}`);
});

test.run();
