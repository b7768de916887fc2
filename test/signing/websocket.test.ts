// Signing mode over websockets: a client holding a token and no exchange key trades over the
// websocket API through the gateway, against a local websocket-API upstream that verifies every
// signature the way the exchange does (the exchange's own client code, @binance/common, builds the
// payload; the secret or the public key checks it). Tokens on upgrades (header or ?token=), the
// `ws:` allow-list per frame, the cross-site guard, user-data stream keep-alive, and no secret in
// any frame, log line or metric.
import { createHmac, createPublicKey, verify } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import WebSocket, { WebSocketServer } from 'ws';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { readConfig } from '../../src/config.js';
import { allowsWsMethod, hashLine, parseTokens } from '../../src/gateway/client-auth/tokens.js';
import { UsageError } from '../../src/usage-error.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';
import { closed, connect, isRefused, nextMessage, open, sleep, type Opened } from '../websocket/ws-upstream.js';
import { dir, ED, ED_KEY, HMAC_KEY, HMAC_SECRET, pemBody, RSA, RSA_KEY, UPSTREAM_KEYS } from './support.js';

const test = suite('signing mode over websockets');

// The exchange's own client code: how @binance/spot builds and signs websocket-API requests.
const requireSpot = createRequire(createRequire(import.meta.url).resolve('@binance/spot'));
const common = requireSpot('@binance/common') as {
  buildQueryString(p: Record<string, unknown>): string;
  sortObject(p: Record<string, unknown>): Record<string, unknown>;
};

const TOKENS = { trader: 'gwt_ws-trader-5f4e3d2c1b0a99887766554433221100ffeeddcc', watcher: 'gwt_ws-watcher-00112233445566778899aabbccddeeff0011223344' };
const wsTokens = join(dir, 'ws-tokens.yaml');
writeFileSync(wsTokens, `tokens:
  - name: ws-trader
    hash: ${hashLine(TOKENS.trader)}
    rights: [user-data]
    allow:
      - GET /api/v3/*
      - POST /api/v3/userDataStream
      - ws: 'order.*'
      - ws: 'userDataStream.*'
  - name: ws-watcher
    hash: ${hashLine(TOKENS.watcher)}
    allow:
      - ws: order.status
`);
const LISTEN_KEY = 'Lk0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV'.slice(0, 60);
const SIGNED = /^order\./;

interface Received { method: string; params: Record<string, unknown>; verdict: 'ok' | 'bad-signature' | 'no-key' }

/** A websocket-API (and stream) upstream that verifies signatures like the exchange. */
async function verifyingUpstream() {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const received: Received[] = [];
  const connections: { url: string; headers: IncomingHttpHeaders; ws: WebSocket }[] = [];
  wss.on('connection', (ws, req) => {
    connections.push({ url: req.url ?? '', headers: req.headers, ws });
    ws.on('message', (data) => {
      const { id, method, params = {} } = JSON.parse(data.toString()) as { id: unknown; method: string; params?: Record<string, unknown> };
      const verdict = check(method, params);
      received.push({ method, params, verdict });
      if (verdict !== 'ok') {
        const error = verdict === 'no-key' ? { code: -2014, msg: 'API-key format invalid.' } : { code: -1022, msg: 'Signature for this request is not valid.' };
        return ws.send(JSON.stringify({ id, status: 400, error }));
      }
      const result = method === 'userDataStream.start' ? { listenKey: LISTEN_KEY } : { symbol: params.symbol, orderId: 42, status: method === 'order.cancel' ? 'CANCELED' : 'NEW' };
      ws.send(JSON.stringify({ id, status: 200, result }));
    });
  });
  function check(method: string, params: Record<string, unknown>): Received['verdict'] {
    if (!SIGNED.test(method) && !method.startsWith('userDataStream.')) return 'ok';
    const keys = UPSTREAM_KEYS[params.apiKey as keyof typeof UPSTREAM_KEYS] as { hmac?: string; publicKey?: string } | undefined;
    if (!keys) return 'no-key';
    if (!SIGNED.test(method)) return 'ok';
    const { signature, ...rest } = params;
    if (typeof signature !== 'string' || Math.abs(Date.now() - Number(rest.timestamp)) > 60_000) return 'bad-signature';
    const payload = common.buildQueryString(common.sortObject(rest));
    const ok = keys.hmac !== undefined
      ? createHmac('sha256', keys.hmac).update(payload).digest('hex') === signature
      : verify(createPublicKey(keys.publicKey!).asymmetricKeyType === 'rsa' ? 'sha256' : null, Buffer.from(payload), keys.publicKey!, Buffer.from(signature, 'base64'));
    return ok ? 'ok' : 'bad-signature';
  }
  const { port } = wss.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}`, received, connections,
    reset() { received.length = 0; connections.length = 0; },
    async stop() { for (const c of wss.clients) c.terminate(); await new Promise<void>((r) => wss.close(() => r())); },
  };
}

/** The REST upstream of the listen-key endpoints: records each request. */
async function restUpstream() {
  const calls: { method: string; url: string; apiKey?: string; at: number }[] = [];
  const server: Server = createServer((req, res) => {
    calls.push({ method: req.method ?? '', url: req.url ?? '', apiKey: req.headers['x-mbx-apikey'] as string | undefined, at: performance.now() });
    req.resume();
    res.setHeader('content-type', 'application/json');
    res.end(req.method === 'POST' ? JSON.stringify({ listenKey: LISTEN_KEY }) : '{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, stop: () => new Promise<void>((r) => server.close(() => r())) };
}

let ws: Awaited<ReturnType<typeof verifyingUpstream>>;
let rest: Awaited<ReturnType<typeof restUpstream>>;
const logs: string[] = [];
const gateways: RunningGateway[] = [];

const ENVS = {
  HMAC: { EXCHANGE_API_KEY: HMAC_KEY, EXCHANGE_API_SECRET: HMAC_SECRET, EXCHANGE_RECV_WINDOW: '5000' },
  RSA: { EXCHANGE_API_KEY: RSA_KEY, EXCHANGE_PRIVATE_KEY_FILE: RSA.privateFile },
  Ed25519: { EXCHANGE_API_KEY: ED_KEY, EXCHANGE_PRIVATE_KEY_FILE: ED.privateFile },
};

async function gateway(env: NodeJS.ProcessEnv, keepAliveMs?: number): Promise<RunningGateway> {
  const args = [
    // An upstream that still speaks 3.12.0 (listen keys alive): the keep-alive path, not the listen-key bridge.
    '--port', '0', '--release', '3.12.0', '--upstream-release', 'exchange=3.12.0', '--tokens-file', wsTokens, '--upstream', `exchange=${rest.url}`,
    '--upstream', `exchange.wsApi=${ws.url}`, '--upstream', `exchange.streams=${ws.url}`,
  ];
  const g = await startGateway(readConfig(args, env), {
    logger: createLogger('debug', (l) => logs.push(l)), websocket: keepAliveMs ? { userDataKeepAliveMs: keepAliveMs } : undefined,
  });
  gateways.push(g);
  return g;
}
const wsUrl = (g: RunningGateway, path: string) => `${g.url.replace(/^http/, 'ws')}${path}`;
const auth = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });
const frames: string[] = [];
async function call(c: Opened, id: string, method: string, params: Record<string, unknown>) {
  c.ws.send(JSON.stringify({ id, method, params }));
  const text = (await nextMessage(c.ws)).data.toString();
  frames.push(text);
  return JSON.parse(text) as { id: string; status: number; result?: Record<string, unknown>; error?: { code: number; msg: string } };
}

test.before(async () => { [ws, rest] = await Promise.all([verifyingUpstream(), restUpstream()]); });
test.before.each(() => { ws.reset(); rest.calls.length = 0; });
test.after(async () => {
  for (const g of gateways) await g.close();
  await Promise.all([ws.stop(), rest.stop()]);
});

for (const [name, env] of Object.entries(ENVS)) {
  test(`${name}: a client with a token and no key places, queries and cancels an order`, async () => {
    const g = await gateway(env);
    const c = await open(wsUrl(g, '/ws-api/v3'), auth(TOKENS.trader));
    const order = { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', price: '20000.5', quantity: 0.01, newClientOrderId: 'my order/1+2' };
    const placed = await call(c, 'p1', 'order.place', order);
    assert.equal(placed, { id: 'p1', status: 200, result: { symbol: 'BTCUSDT', orderId: 42, status: 'NEW' } });
    const queried = await call(c, 'q1', 'order.status', { symbol: 'BTCUSDT', orderId: 42 });
    assert.is(queried.status, 200);
    const cancelled = await call(c, 'c1', 'order.cancel', { symbol: 'BTCUSDT', orderId: 42 });
    assert.is(cancelled.result?.status, 'CANCELED');
    assert.equal(ws.received.map((r) => [r.method, r.verdict]), [['order.place', 'ok'], ['order.status', 'ok'], ['order.cancel', 'ok']]);
    const sent = ws.received[0].params;
    const names = Object.keys(sent);
    assert.equal(names, [...names.filter((n) => n !== 'signature').sort(), 'signature'], 'params sorted, signature last, as the exchange\'s client sends them');
    assert.is(sent.quantity, 0.01, 'the client\'s values are kept');
    assert.is(sent.recvWindow, name === 'HMAC' ? 5000 : undefined);
    // A frame the client signed itself passes byte for byte (and fails at the upstream: wrong signature).
    const own = JSON.stringify({ id: 'own', method: 'order.status', params: { symbol: 'BTCUSDT', orderId: 1, apiKey: 'theirs', timestamp: Date.now(), signature: 'deadbeef' } });
    c.ws.send(own);
    const answer = JSON.parse((await nextMessage(c.ws)).data.toString());
    assert.is(answer.error.code, -2014);
    assert.equal(ws.received[3].params, JSON.parse(own).params);
    c.ws.close();
    await closed(c.ws);
  });
}

test('a token without order.place gets the exchange-shaped 403 frame; the upstream receives nothing', async () => {
  const g = await gateway(ENVS.HMAC);
  const c = await open(wsUrl(g, '/ws-api/v3'), auth(TOKENS.watcher));
  const refused = await call(c, 'x1', 'order.place', { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: 1 });
  assert.equal(refused, { id: 'x1', status: 403, error: { code: -2015, msg: 'Client token "ws-watcher" is not allowed to call order.place.' } });
  const allowed = await call(c, 'x2', 'order.status', { symbol: 'BTCUSDT', orderId: 7 });
  assert.is(allowed.status, 200);
  assert.equal(ws.received.map((r) => r.method), ['order.status'], 'only the allowed request reached the upstream');
  c.ws.close();
});

test('upgrades without a token get 401 before any upstream connection; ?token= works and is not forwarded', async () => {
  const g = await gateway(ENVS.HMAC);
  for (const [path, options] of [['/ws-api/v3', {}], ['/ws/btcusdt@trade', {}], ['/ws-api/v3', auth('gwt_not-a-token')], ['/ws-api/v3?token=gwt_nope', {}]] as const) {
    const r = await connect(wsUrl(g, path), options);
    assert.ok(isRefused(r), `${path} refused`);
    if (isRefused(r)) {
      assert.is(r.status, 401, path);
      assert.is(r.body.code, -2014);
      assert.match(String(r.headers['www-authenticate']), /^Bearer realm="gateway"/);
    }
  }
  const cross = await connect(wsUrl(g, '/ws-api/v3'), { ...auth(TOKENS.trader), origin: 'https://evil.example' });
  assert.ok(isRefused(cross) && cross.status === 403 && cross.body.code === -2015, 'a web page of another origin is refused');
  assert.is(ws.connections.length, 0, 'no upstream connection for any refused upgrade');
  const c = await open(wsUrl(g, `/ws-api/v3?returnRateLimits=false&token=${TOKENS.trader}`));
  assert.is((await call(c, 't1', 'order.status', { symbol: 'BTCUSDT', orderId: 1 })).status, 200);
  assert.is(ws.connections[0].url, '/ws-api/v3?returnRateLimits=false', 'the token is not forwarded');
  assert.is(ws.connections[0].headers.authorization, undefined);
  c.ws.close();
});

test('the token query parameter is stripped however it is spelt or encoded; given twice, the upgrade is refused', async () => {
  const g = await gateway(ENVS.HMAC);
  for (const name of ['%74oken', 'Token', 'TOKEN', '%54OKEN']) {
    ws.reset();
    const c = await open(wsUrl(g, `/ws-api/v3?returnRateLimits=false&${name}=${TOKENS.trader}`));
    assert.is((await call(c, 't1', 'order.status', { symbol: 'BTCUSDT', orderId: 1 })).status, 200, name);
    assert.is(ws.connections[0].url, '/ws-api/v3?returnRateLimits=false', `${name}: the token is not forwarded`);
    c.ws.close();
  }
  ws.reset();
  const twice = await connect(wsUrl(g, `/ws-api/v3?token=${TOKENS.trader}&Token=${TOKENS.watcher}`));
  assert.ok(isRefused(twice) && twice.status === 400, 'two token parameters: refused');
  assert.is(ws.connections.length, 0);
});

test('a user-data stream opened through the gateway is kept alive while the client listens, and closed after', async () => {
  const g = await gateway(ENVS.HMAC, 150);
  // The listen key, over the websocket API: the gateway adds the API key.
  const api = await open(wsUrl(g, '/ws-api/v3'), auth(TOKENS.trader));
  const started = await call(api, 'u1', 'userDataStream.start', {});
  assert.is(started.result?.listenKey, LISTEN_KEY);
  assert.is(ws.received[0].params.apiKey, HMAC_KEY);
  api.ws.close();
  // Or over REST: the gateway adds the key header.
  const res = await fetch(`${g.url}/api/v3/userDataStream`, { method: 'POST', headers: { Authorization: `Bearer ${TOKENS.trader}` } });
  assert.equal([res.status, await res.json()], [200, { listenKey: LISTEN_KEY }]);
  assert.equal(rest.calls.map((c) => [c.method, c.apiKey]), [['POST', HMAC_KEY]]);
  rest.calls.length = 0;
  const opened = performance.now();
  const stream = await open(wsUrl(g, `/ws/${LISTEN_KEY}`), auth(TOKENS.trader));
  const deadline = Date.now() + 10_000;
  while (rest.calls.filter((c) => c.method === 'PUT').length < 2 && Date.now() < deadline) await sleep(20);
  const puts = rest.calls.filter((c) => c.method === 'PUT');
  assert.ok(puts.length >= 2, `two keep-alives (got ${puts.length})`);
  for (const p of puts) {
    assert.is(p.url, `/api/v3/userDataStream?listenKey=${LISTEN_KEY}`);
    assert.is(p.apiKey, HMAC_KEY);
  }
  // Two intervals: the second keep-alive came no sooner than two intervals after the stream opened.
  assert.ok(puts[1].at - opened >= 2 * 150 - 20, `second keep-alive after two intervals (${(puts[1].at - opened).toFixed(0)} ms)`);
  stream.ws.close();
  await closed(stream.ws);
  while (!rest.calls.some((c) => c.method === 'DELETE') && Date.now() < deadline) await sleep(20);
  const del = rest.calls.find((c) => c.method === 'DELETE');
  assert.ok(del, 'the listen key is closed upstream when the client leaves');
  assert.is(del!.url, `/api/v3/userDataStream?listenKey=${LISTEN_KEY}`);
  assert.is(del!.apiKey, HMAC_KEY);
  const after = rest.calls.length;
  await sleep(3 * 150);
  assert.is(rest.calls.length, after, 'no keep-alive after the close');
});

test('nothing secret in frames sent back, log lines (debug) or metrics', async () => {
  const g = gateways[0] ?? await gateway(ENVS.HMAC);
  const metrics = await (await fetch(`${g.url}/_gateway/metrics`)).text();
  const secrets = [HMAC_SECRET, HMAC_KEY, RSA_KEY, ED_KEY, pemBody(RSA.privatePem), pemBody(ED.privatePem), ...Object.values(TOKENS), LISTEN_KEY];
  assert.ok(frames.length >= 8 && logs.length > 0);
  for (const s of secrets) {
    assert.not.ok(logs.some((l) => l.includes(s)), 'a log line holds a secret');
    assert.not.ok(metrics.includes(s), 'the metrics hold a secret');
    // The listen key is the upstream's own answer to userDataStream.start: the client's to have.
    if (s !== LISTEN_KEY) for (const f of frames) assert.not.ok(f.includes(s), `a frame sent back holds a secret: ${f}`);
  }
});

test('tokens file: ws entries (names, * patterns), their errors, and the start-up check against the catalogue', async () => {
  const hash = hashLine('gwt_x');
  const [t] = parseTokens({ tokens: [{ name: 'bot', hash, allow: [{ ws: 'order.*' }, { ws: 'ping' }, 'GET /api/v3/*'] }] });
  assert.ok(allowsWsMethod(t, 'order.place') && allowsWsMethod(t, 'order.cancelReplace') && allowsWsMethod(t, 'ping'));
  assert.not.ok(allowsWsMethod(t, 'orderList.place') || allowsWsMethod(t, 'pingx') || allowsWsMethod(t, 'account.status'));
  const refused = (allow: unknown[]) => {
    try {
      parseTokens({ tokens: [{ name: 'bot', hash, allow }] });
    } catch (e) {
      assert.instance(e, UsageError);
      return (e as Error).message;
    }
    return 'accepted';
  };
  assert.match(refused([{ ws: 'order place' }]), /allow\[0\]: ws must be a websocket-API method name or a pattern with \*/);
  assert.match(refused([{ ws: 'order.*', methods: ['GET'] }]), /a ws entry takes no other key/);
  assert.match(refused([{ wss: 'order.*' }]), /unknown key "wss"; valid: module, path, methods, ws/);
  const typo = join(dir, 'ws-typo.yaml');
  writeFileSync(typo, `tokens:\n  - name: bot\n    hash: ${hash}\n    allow:\n      - ws: 'oder.*'\n`);
  try {
    await startGateway(readConfig(['--port', '0', '--tokens-file', typo, '--upstream', `exchange=${rest.url}`], {}), { logger: createLogger('silent') });
    assert.unreachable('a ws entry matching no method must stop start-up');
  } catch (e) {
    assert.match((e as Error).message, /ws entries that match no websocket-API method of the catalogue: "oder\.\*" \(token "bot"\)/);
  }
});

test.run();
