// Version changes over websockets: a connection pinned at an old release (/@<release>/) has its
// websocket-API frames carried to the upstream's release (orderList.place → orderList.place.oco,
// signed again in signing mode, refused 410 without a key), answers carried back down, and stream
// names the upstream no longer has refused naming the replacement. The upstream is a local
// websocket server that knows only today's OCO method, checks its required params and verifies
// signatures as the exchange does (the exchange's own client code builds the payload).
import { newestExchangeRelease, reEscape } from '../support/newest.js';
import { createHmac } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import WebSocket, { WebSocketServer } from 'ws';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { readConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';
import { ROOT } from '../support/processes.js';
import { tempDir } from '../support/temp.js';
import { cacheDirWithParses } from '../support/cache-dir.js';
import { connect, isRefused, nextMessage, open, type Opened } from '../websocket/ws-upstream.js';
import { HMAC_KEY, HMAC_SECRET } from '../signing/support.js';
import { hashLine } from '../../src/gateway/client-auth/tokens.js';

const NEWEST = newestExchangeRelease();
const test = suite('version changes over websockets');

const requireSpot = createRequire(createRequire(import.meta.url).resolve('@binance/spot'));
const common = requireSpot('@binance/common') as {
  buildQueryString(p: Record<string, unknown>): string;
  sortObject(p: Record<string, unknown>): Record<string, unknown>;
};
const hmac = (params: Record<string, unknown>) => createHmac('sha256', HMAC_SECRET).update(common.buildQueryString(common.sortObject(params))).digest('hex');

/** Required params of orderList.place.oco at 3.12.0 (ws-api.yaml), what the stand-in checks. */
const OCO_REQUIRED = ['symbol', 'side', 'quantity', 'aboveType', 'belowType', 'apiKey', 'timestamp', 'signature'];

interface Received { method: string; params: Record<string, unknown>; raw: string }

/** Today's websocket API and stream server, as far as these tests need it. */
async function newestUpstream() {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const received: Received[] = [];
  wss.on('connection', (ws, req) => {
    ws.on('message', (data) => {
      const raw = data.toString();
      const { id, method, params = {} } = JSON.parse(raw) as { id: unknown; method: string; params?: Record<string, unknown> };
      received.push({ method, params, raw });
      if (!req.url?.startsWith('/ws-api')) return ws.send(JSON.stringify({ result: null, id }));
      const fail = (code: number, msg: string) => ws.send(JSON.stringify({ id, status: 400, error: { code, msg } }));
      if (method === 'ping') return ws.send(JSON.stringify({ id, status: 200, result: {} }));
      if (method !== 'orderList.place.oco') return fail(-1020, `unknown method ${method}`);
      const missing = OCO_REQUIRED.filter((n) => params[n] === undefined);
      if (missing.length) return fail(-1102, `Mandatory parameter '${missing[0]}' was not sent`);
      const { signature, ...rest } = params;
      if (params.apiKey !== HMAC_KEY || hmac(rest) !== signature) return fail(-1022, 'Signature for this request is not valid.');
      ws.send(JSON.stringify({ id, status: 200, result: { orderListId: 7, contingencyType: 'OCO', symbol: params.symbol, orders: [{ orderId: 1 }, { orderId: 2 }] } }));
    });
  });
  return {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, received,
    async stop() { for (const c of wss.clients) c.terminate(); await new Promise<void>((r) => wss.close(() => r())); },
  };
}

let up: Awaited<ReturnType<typeof newestUpstream>>;
const gateways: RunningGateway[] = [];
const logs: string[] = [];
const sockets: WebSocket[] = [];

async function gateway(env: NodeJS.ProcessEnv = {}, extra: string[] = []): Promise<RunningGateway> {
  const args = ['--port', '0', '--release', '1.0.0,3.5.1,3.12.0', '--upstream', 'exchange=http://127.0.0.1:9',
    '--upstream', `exchange.wsApi=${up.url}`, '--upstream', `exchange.streams=${up.url}`, ...extra];
  const g = await startGateway(readConfig(args, env), { logger: createLogger('info', (l) => logs.push(l)) });
  gateways.push(g);
  return g;
}
const wsUrl = (g: RunningGateway, path: string) => `${g.url.replace(/^http/, 'ws')}${path}`;
async function api(g: RunningGateway, release: string): Promise<Opened> {
  const c = await open(wsUrl(g, `/@${release}/ws-api/v3`));
  sockets.push(c.ws);
  return c;
}
async function call(c: Opened, frame: Record<string, unknown>) {
  c.ws.send(JSON.stringify(frame));
  return JSON.parse((await nextMessage(c.ws)).data.toString()) as { id: unknown; status: number; result?: Record<string, unknown>; error?: { code: number; msg: string } };
}

/** An OCO as a 3.5.1 client places it (orderList.place). */
const SELL_OCO = { symbol: 'BTCUSDT', side: 'SELL', quantity: 0.5, price: '70000', stopPrice: 60000, stopLimitPrice: '59900', stopLimitTimeInForce: 'GTC', limitClientOrderId: 'tp-1', stopClientOrderId: 'sl-1', listClientOrderId: 'list-1' };

test.before(async () => { up = await newestUpstream(); });
test.before.each(() => { up.received.length = 0; });
test.after(async () => {
  for (const s of sockets) s.terminate();
  for (const g of gateways) await g.close();
  await up.stop();
});

test('without a key: a client-signed orderList.place at 3.5.1 is answered 410 naming orderList.place.oco; the upstream receives nothing', async () => {
  const g = await gateway();
  const c = await api(g, '3.5.1');
  const params = { ...SELL_OCO, apiKey: HMAC_KEY, timestamp: Date.now() };
  const answer = await call(c, { id: 'o1', method: 'orderList.place', params: { ...params, signature: hmac(params) } });
  assert.is(answer.id, 'o1');
  assert.is(answer.status, 410);
  assert.match(answer.error!.msg, new RegExp(`orderList\\.place at 3\\.5\\.1 becomes orderList\\.place\\.oco at ${reEscape(NEWEST)} \\(3\\.8\\.0 oco-place-to-order-list-oco\\).*no key.*use orderList\\.place\\.oco`));
  // A method nothing changed for passes byte for byte on the same connection.
  const ping = JSON.stringify({ id: 'p', method: 'ping' });
  c.ws.send(ping);
  assert.is(JSON.parse((await nextMessage(c.ws)).data.toString()).status, 200);
  assert.equal(up.received.map((r) => r.raw), [ping], 'only the ping reached the upstream');
});

test('without a key: at 3.12.0 orderList.place (deprecated, still served, unchanged up to the upstream\'s release) is forwarded as sent', async () => {
  const g = await gateway();
  const c = await api(g, '3.12.0');
  const params = { ...SELL_OCO, apiKey: HMAC_KEY, timestamp: Date.now() };
  const frame = JSON.stringify({ id: 'n1', method: 'orderList.place', params: { ...params, signature: hmac(params) } });
  c.ws.send(frame);
  await nextMessage(c.ws);
  assert.equal(up.received.map((r) => r.raw), [frame]);
});

test('signing mode: orderList.place at 3.5.1 reaches the upstream as orderList.place.oco, legs by side, signed by the gateway', async () => {
  const g = await gateway({ EXCHANGE_API_KEY: HMAC_KEY, EXCHANGE_API_SECRET: HMAC_SECRET });
  const c = await api(g, '3.5.1');
  const sell = await call(c, { id: 's1', method: 'orderList.place', params: SELL_OCO });
  assert.equal(sell, { id: 's1', status: 200, result: { orderListId: 7, contingencyType: 'OCO', symbol: 'BTCUSDT', orders: [{ orderId: 1 }, { orderId: 2 }] } });
  const { apiKey, timestamp, signature, ...sent } = up.received[0].params;
  assert.is(up.received[0].method, 'orderList.place.oco');
  assert.equal([apiKey, typeof timestamp, typeof signature], [HMAC_KEY, 'number', 'string']);
  assert.equal(sent, {
    symbol: 'BTCUSDT', side: 'SELL', quantity: 0.5, listClientOrderId: 'list-1',
    aboveType: 'LIMIT_MAKER', abovePrice: '70000', aboveClientOrderId: 'tp-1',
    belowType: 'STOP_LOSS_LIMIT', belowStopPrice: 60000, belowPrice: '59900', belowTimeInForce: 'GTC', belowClientOrderId: 'sl-1',
  }, 'the client\'s JSON values keep their types');
  // A BUY: the limit leg is below the market, the stop (no stop-limit price: STOP_LOSS) above.
  const buy = await call(c, { id: 'b1', method: 'orderList.place', params: { symbol: 'BTCUSDT', side: 'BUY', quantity: '1', price: '50000', stopPrice: '65000' } });
  assert.is(buy.status, 200, JSON.stringify(buy));
  const b = up.received[1].params;
  assert.equal([b.belowType, b.belowPrice, b.aboveType, b.aboveStopPrice, b.price, b.stopPrice], ['LIMIT_MAKER', '50000', 'STOP_LOSS', '65000', undefined, undefined]);
  // Frames have no access line: the connection's log says once what the migration does, never a secret.
  const told = logs.filter((l) => l.includes(`ws-api orderList.place at 3.5.1: migrated to orderList.place.oco at ${NEWEST} (3.8.0 oco-place-to-order-list-oco)`));
  assert.is(told.length, 1, logs.join('\n'));
  assert.not.ok(logs.some((l) => l.includes(HMAC_SECRET)));
});

test('signing mode: a frame the client signed is verified, migrated and signed again with its timestamp; a bad signature is 401 -1022 and never forwarded', async () => {
  const g = await gateway({ EXCHANGE_API_KEY: HMAC_KEY, EXCHANGE_API_SECRET: HMAC_SECRET });
  const c = await api(g, '3.5.1');
  const params = { ...SELL_OCO, apiKey: HMAC_KEY, timestamp: Date.now() - 1234, recvWindow: 5000 };
  const ok = await call(c, { id: 'c1', method: 'orderList.place', params: { ...params, signature: hmac(params) } });
  assert.is(ok.status, 200, JSON.stringify(ok));
  assert.equal([up.received[0].params.timestamp, up.received[0].params.recvWindow], [params.timestamp, 5000]);
  const bad = await call(c, { id: 'c2', method: 'orderList.place', params: { ...params, signature: 'f'.repeat(64) } });
  assert.equal([bad.id, bad.status, bad.error!.code], ['c2', 401, -1022]);
  assert.is(up.received.length, 1, 'the badly signed frame was not forwarded');
  // A side an OCO does not have is refused by the gateway: the migration cannot carry it.
  const odd = await call(c, { id: 'c3', method: 'orderList.place', params: { ...SELL_OCO, side: 'HOLD' } });
  assert.is(odd.status, 400);
  assert.is(up.received.length, 1);
});

test('signing mode with tokens: rights are checked against the method the frame is sent as (orderList.place.oco), not only the one named', async () => {
  const file = join(tempDir('gw-ws-scope-'), 'tokens.yaml');
  const NARROW = 'gwt_ws-scope-narrow-0123456789abcdef0123456789abcdef';
  const WIDE = 'gwt_ws-scope-wide-0123456789abcdef0123456789abcdef012';
  writeFileSync(file, `tokens:
  - name: narrow
    hash: ${hashLine(NARROW)}
    allow: [{ ws: orderList.place }]
  - name: wide
    hash: ${hashLine(WIDE)}
    allow: [{ ws: 'orderList.*' }]
`);
  const g = await gateway({ EXCHANGE_API_KEY: HMAC_KEY, EXCHANGE_API_SECRET: HMAC_SECRET }, ['--tokens-file', file]);
  const narrow = await open(wsUrl(g, `/@3.5.1/ws-api/v3?token=${NARROW}`));
  sockets.push(narrow.ws);
  const refused = await call(narrow, { id: 'n1', method: 'orderList.place', params: SELL_OCO });
  assert.equal([refused.id, refused.status, refused.error?.code], ['n1', 403, -2015], JSON.stringify(refused));
  assert.match(refused.error!.msg, /not allowed to call orderList\.place\.oco, which orderList\.place at 3\.5\.1 is sent as/);
  assert.is(up.received.length, 0, 'nothing forwarded');
  const wide = await open(wsUrl(g, `/@3.5.1/ws-api/v3?token=${WIDE}`));
  sockets.push(wide.ws);
  assert.is((await call(wide, { id: 'w1', method: 'orderList.place', params: SELL_OCO })).status, 200);
  assert.is(up.received[0]?.method, 'orderList.place.oco');
});

test('streams: the removed !bookTicker at 1.0.0 is refused 410 naming <symbol>@bookTicker, in the URL and in SUBSCRIBE; per-symbol streams pass', async () => {
  const g = await gateway();
  const r = await connect(wsUrl(g, '/@1.0.0/ws/!bookTicker'));
  assert.ok(isRefused(r));
  if (isRefused(r)) {
    assert.is(r.status, 410);
    assert.match(String(r.body.msg), /!bookTicker.*no longer has stream !bookTicker since 2\.0\.0.*use <symbol>@bookTicker/);
  }
  const c = await open(wsUrl(g, '/@1.0.0/ws/btcusdt@bookTicker'));
  sockets.push(c.ws);
  c.ws.send(JSON.stringify({ method: 'SUBSCRIBE', params: ['!bookTicker'], id: 1 }));
  const refused = JSON.parse((await nextMessage(c.ws)).data.toString());
  assert.is(refused.id, 1);
  assert.match(refused.error.msg, /use <symbol>@bookTicker/);
  c.ws.send(JSON.stringify({ method: 'SUBSCRIBE', params: ['ethusdt@bookTicker'], id: 2 }));
  assert.equal(JSON.parse((await nextMessage(c.ws)).data.toString()), { result: null, id: 2 });
  assert.equal(up.received.map((x) => x.params), [['ethusdt@bookTicker']]);
});

test('GET /_gateway/plan explains websocket items too', async () => {
  const g = await gateway();
  const ask = async (q: string) => { const r = await fetch(`${g.url}/_gateway/plan?${q}`); return { status: r.status, body: await r.json() as Record<string, any> }; };
  const oco = await ask('release=3.5.1&operation=ws-api%20orderList.place');
  assert.is(oco.status, 200);
  assert.match(oco.body.decision, /^migrated to orderList\.place\.oco \(3\.8\.0 oco-place-to-order-list-oco\); a frame the client signed is carried only in signing mode/);
  assert.equal(oco.body.plan.request, [{ kind: 'transform', name: 'ocoToOrderListOco' }]);
  const book = await ask('release=1.0.0&operation=stream%20!bookTicker');
  assert.match(book.body.decision, /^refused 410: removed in 2\.0\.0: .*; use <symbol>@bookTicker$/);
  assert.is((await ask('release=3.12.0&operation=ws-api%20orderList.place')).body.plan, null);
  assert.is((await ask('release=3.5.1&operation=ws-api%20order.nothing')).status, 404);
});

test('answers come back down: answer steps of a websocket change apply to the result of the frame they answer', async () => {
  // A copy of the catalogue whose OCO change also renames a field of the answer (new name → old).
  const dir = tempDir('gw-ws-versions-');
  cpSync(join(ROOT, 'catalogue'), dir, { recursive: true });
  const file = join(dir, 'exchange/changes.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace(/(      - transform: ocoToOrderListOco\n)/, '$1    answer:\n      - rename: { orderListId: listId }\n'));
  const g = await gateway({ EXCHANGE_API_KEY: HMAC_KEY, EXCHANGE_API_SECRET: HMAC_SECRET, GATEWAY_CACHE_DIR: cacheDirWithParses('gw-ws-versions-cache-') }, ['--catalogue', dir]);
  const c = await api(g, '3.5.1');
  const placed = await call(c, { id: 7, method: 'orderList.place', params: SELL_OCO });
  assert.is(placed.result?.listId, 7, JSON.stringify(placed));
  assert.is(placed.result?.orderListId, undefined);
  // A frame of a method nothing changed for comes back as the upstream sent it.
  assert.equal(await call(c, { id: 8, method: 'ping' }), { id: 8, status: 200, result: {} });
});

test.run();
