// Websocket-API requests checked at the pinned release: methods by lifecycle, params by schema;
// refused requests answered in the upstream's shape with the request id and never forwarded.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { readConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';
import { nextMessage, open, sleep, startWsUpstream, wsGatewayAt, wsUrl, type Opened, type UpstreamConnection, type WsUpstream } from './ws-upstream.js';

const test = suite('websocket API through the gateway');
let upstream: WsUpstream;
const logs: string[] = [];
const gateways = new Map<string, RunningGateway>();
async function gw(release: string): Promise<RunningGateway> {
  let g = gateways.get(release);
  if (!g) gateways.set(release, (g = await wsGatewayAt(release, upstream, { logger: createLogger('info', (l) => logs.push(l)) })));
  return g;
}
/** A client and its upstream connection at a release. */
async function session(release: string, query = ''): Promise<{ c: Opened; conn: UpstreamConnection }> {
  const c = await open(`${wsUrl(await gw(release))}/ws-api/v3${query}`);
  return { c, conn: await upstream.nextConnection() };
}
const reply = async (c: Opened) => JSON.parse((await nextMessage(c.ws)).data.toString());

const SIGNED = { apiKey: 'k', timestamp: 1700000000000, signature: 'abc' };
const OTO = {
  symbol: 'BTCUSDT', workingType: 'LIMIT', workingSide: 'BUY', workingPrice: '1', workingQuantity: '1',
  pendingType: 'MARKET', pendingSide: 'SELL', pendingQuantity: '1', ...SIGNED,
};

test.before(async () => { upstream = await startWsUpstream(); });
test.before.each(() => { upstream.reset(); logs.length = 0; });
test.after(async () => {
  for (const g of gateways.values()) await g.close();
  await upstream.stop();
});

test('orderList.place.oto: refused at 3.7.0 (added in 3.8.0), forwarded byte for byte at 3.8.0', async () => {
  const frame = JSON.stringify({ id: 'oto-1', method: 'orderList.place.oto', params: OTO });
  const a = await session('3.7.0');
  a.c.ws.send(frame);
  const err = await reply(a.c);
  assert.equal(err, {
    id: 'oto-1', status: 400,
    error: { code: -1020, msg: "Websocket API method 'orderList.place.oto' was added in 3.8.0; this gateway serves 3.7.0." },
  });
  await sleep(30);
  assert.equal(a.conn.received, [], 'not forwarded');
  a.c.ws.close();

  const b = await session('3.8.0');
  b.c.ws.send(frame);
  const ok = await reply(b.c);
  assert.is(ok.id, 'oto-1');
  assert.is(ok.status, 200);
  assert.is(b.conn.received.length, 1);
  assert.is(b.conn.received[0].data.toString(), frame);
  b.c.ws.close();
});

test('orderList.place at 3.8.0: forwarded as deprecated, with a log line naming the facts', async () => {
  const { c, conn } = await session('3.8.0');
  const frame = JSON.stringify({ id: 7, method: 'orderList.place', params: { symbol: 'BTCUSDT', side: 'SELL', price: '2', quantity: 1, stopPrice: '0.5', ...SIGNED } });
  c.ws.send(frame);
  assert.is((await reply(c)).status, 200);
  c.ws.send(frame);
  assert.is((await reply(c)).status, 200);
  assert.equal(conn.received.map((f) => f.data.toString()), [frame, frame]);
  const lines = logs.filter((l) => /orderList\.place/.test(l));
  assert.is(lines.length, 1, 'logged once per connection');
  assert.match(lines[0], /ws-api orderList\.place at 3\.8\.0: deprecated in 3\.8\.0; use orderList\.place\.oco/);
  c.ws.close();
});

test('params: missing -1102, not yet added -1103, bad enum value -1130, each with the request id', async () => {
  const { c, conn } = await session('3.9.0');
  c.ws.send(JSON.stringify({ id: 1, method: 'klines', params: { interval: '1m' } }));
  let e = await reply(c);
  assert.is(e.id, 1);
  assert.is(e.status, 400);
  assert.is(e.error.code, -1102);
  assert.match(e.error.msg, /'symbol'/);

  c.ws.send(JSON.stringify({ id: 2, method: 'klines', params: { symbol: 'BTCUSDT', interval: '1m', timeZone: '+08:00' } }));
  e = await reply(c);
  assert.is(e.id, 2);
  assert.is(e.error.code, -1103);
  assert.match(e.error.msg, /timeZone.*added in 3\.10\.0; this gateway serves 3\.9\.0/);

  c.ws.send(JSON.stringify({ id: 3, method: 'klines', params: { symbol: 'BTCUSDT', interval: '2m' } }));
  e = await reply(c);
  assert.is(e.id, 3);
  assert.is(e.error.code, -1130);
  assert.match(e.error.msg, /'2m'.*interval/);

  c.ws.send(JSON.stringify({ id: 4, method: 'depth', params: { symbol: 'BTCUSDT', limit: 6000 } }));
  assert.is((await reply(c)).error.code, -1130);

  c.ws.send(JSON.stringify({ id: 5, method: 'exchangeInfo', params: { symbol: 'BTCUSDT', symbols: ['BNBBTC'] } }));
  assert.is((await reply(c)).error.code, -1128);

  const good = JSON.stringify({ id: 6, method: 'klines', params: { symbol: 'BTCUSDT', interval: '1m', limit: 10 } });
  c.ws.send(good);
  assert.is((await reply(c)).status, 200);
  assert.equal(conn.received.map((f) => f.data.toString()), [good], 'only the valid request reached the upstream');
  c.ws.close();
});

test('unknown method, malformed frames', async () => {
  const { c, conn } = await session('3.12.0');
  c.ws.send(JSON.stringify({ id: 'u', method: 'no.such.method' }));
  const e = await reply(c);
  assert.equal(e, { id: 'u', status: 400, error: { code: -1020, msg: "Unknown websocket API method 'no.such.method': not in the catalogue." } });
  c.ws.send('not json');
  const m = await reply(c);
  assert.is(m.id, null);
  assert.is(m.error.code, -1102);
  c.ws.send(JSON.stringify({ id: 9, params: {} }));
  assert.match((await reply(c)).error.msg, /'method'/);
  c.ws.send(JSON.stringify({ id: 10, method: 'ping', params: [1] }));
  assert.match((await reply(c)).error.msg, /params/);
  c.ws.send(JSON.stringify({ id: 11, method: 'ping' }));
  assert.equal(await reply(c), { id: 11, status: 200, result: { upstream: true, method: 'ping', params: null } });
  assert.is(conn.received.length, 1);
  c.ws.close();
});

test('the client query string reaches the websocket-API upstream unchanged (its base URL joined with ws-api.yaml\'s path)', async () => {
  const { c, conn } = await session('3.12.0', '?timeUnit=MICROSECOND');
  assert.is(conn.url, '/ws-api/v3?timeUnit=MICROSECOND');
  c.ws.close();
});

test('the older form, --upstream exchange.wsApi=<full URL ending in /ws-api/v3>, still works: the path is not joined twice', async () => {
  for (const old of [`${upstream.url}/ws-api/v3`, `${upstream.url}/ws-api/v3/`]) {
    const g = await startGateway(readConfig(['--port', '0', '--release', '3.12.0', '--upstream', 'exchange=http://127.0.0.1:9', '--upstream', `exchange.wsApi=${old}`], {}), { logger: createLogger('silent') });
    try {
      const c = await open(`${wsUrl(g)}/ws-api/v3?timeUnit=MICROSECOND`);
      assert.is((await upstream.nextConnection()).url, '/ws-api/v3?timeUnit=MICROSECOND', old);
      c.ws.close();
    } finally {
      await g.close();
    }
  }
});

test('an accepted websocket-API upgrade: X-Request-Id on the 101, one access line (route, 101, release), the id forwarded', async () => {
  const c = await open(`${wsUrl(await gw('3.9.0'))}/ws-api/v3?returnRateLimits=false`, { headers: { 'X-Request-Id': 'ws-api-101' } });
  const conn = await upstream.nextConnection();
  assert.is(c.headers['x-request-id'], 'ws-api-101');
  assert.is(conn.headers['x-request-id'], 'ws-api-101');
  const access = logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.msg === 'access' && r.reqId === 'ws-api-101');
  assert.is(access.length, 1, logs.join(''));
  assert.equal({ route: access[0].route, status: access[0].status, release: access[0].release, method: access[0].method }, { route: '/ws-api/v3', status: 101, release: '3.9.0', method: 'GET' });
  assert.not.ok(logs.join('').includes('returnRateLimits'), 'no query in the log');
  c.ws.close();
});

test.run();
