// Margin user data today (issue 48 items 1, 2 and the margin half of 5): the listen token. ccxt 4.5.84
// asks POST /sapi/v1/userListenToken (API key, form body, no signature: the exchange documents it as
// USER_STREAM) and subscribes with userDataStream.subscribe.listenToken on the websocket API; both reach
// the local stand-in through the gateway at the newest release, for a token with the user-data right
// only, and its margin watches (watchBalance, watchOrders) get the account's events. The margin listen keys they replace are served up to the exchange's retirement (margin change
// log §2026-01-21, effective 2026-02-20) and answered 410 naming the listen-token flow from it on.
import { createRequire } from 'node:module';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { readConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';
import { releaseIds, findService } from '../../src/catalogue/resolve.js';
import { DEFAULT_CATALOGUE_DIR, loadCatalogue } from '../../src/catalogue/load.js';
import { ROOT, startUpstream, type Upstream } from '../support/processes.js';
import { nextMessage, open } from '../websocket/ws-upstream.js';
import { HMAC_KEY, HMAC_SECRET, UPSTREAM_KEYS } from '../signing/support.js';
import { writeTokens } from './tokens-file.js';
import { startTap, type Tap } from '../clients/tap.js';

const require = createRequire(import.meta.url);
type Exchange = Record<string, any>;
const ccxt = require('ccxt') as { pro: { binance: new (config: Record<string, unknown>) => Exchange }; version: string };

const test = suite('margin user data: the listen token at the newest release, margin listen keys retired at 2026.01.21');

/** Two gateway tokens: one with the user-data right, one allowed every /sapi path and every userDataStream method but without it. */
const TOKENS = {
  bot: 'gwt_mbot-5c1e8a7b9d3f2e4a6b8c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f',
  narrow: 'gwt_mnarrow-0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a',
};
const tokensFile = writeTokens('margin-listen-token-tokens.yaml', [
  { name: 'bot', token: TOKENS.bot, rights: ['user-data'], allow: ['GET /api/v3/*', 'GET /sapi/**', "'* /sapi/v1/userDataStream'", "'* /sapi/v1/userDataStream/isolated'", "ws: '*'"] },
  { name: 'narrow', token: TOKENS.narrow, allow: ["'* /sapi/**'", "ws: 'userDataStream.*'"] },
]);

const releases = releaseIds(findService(loadCatalogue(DEFAULT_CATALOGUE_DIR).catalogue, 'exchange'));
const NEWEST = releases[releases.length - 1];
const EVENT = { e: 'outboundAccountPosition', E: 1564034571105, u: 1564034571073, B: [{ a: 'BNB', f: '1.00000000', l: '0.00000000' }] };

let up: Upstream;
let gw: RunningGateway;
let tap: Tap;
const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });
const wsBase = () => gw.url.replace(/^http/, 'ws');
/**
 * ccxt as its users make it, its api.binance.com URLs sent to the tap in front of the gateway, with a
 * gateway token; its websocket API at the gateway, the token as ?token= (ccxt sets no headers there).
 */
function client(token: string): Exchange {
  const x = new ccxt.pro.binance({ apiKey: HMAC_KEY, secret: HMAC_SECRET, headers: bearer(token), options: { fetchMarkets: { types: ['spot'] } } });
  const api = x.urls.api as Record<string, any>;
  for (const [k, v] of Object.entries(api)) if (typeof v === 'string' && v.startsWith('https://api.binance.com')) api[k] = v.replace('https://api.binance.com', tap.url);
  api.ws['ws-api'].spot = `${wsBase()}/ws-api/v3?token=${token}`;
  // ccxt schedules its listen-token renewal a day ahead on a timer of its own: unref'd, so that the test's process may end.
  x.delay = (ms: number, method: unknown, ...args: unknown[]) => void setTimeout(() => x.spawn(method, ...args), ms).unref();
  return x;
}

test.before(async () => {
  up = await startUpstream(UPSTREAM_KEYS, `${ROOT}test/clients/fixtures`); // realistic market answers for ccxt's loadMarkets
  const ws = up.url.replace(/^http/, 'ws');
  gw = await startGateway(readConfig(['--port', '0', '--release', 'all', '--tokens-file', tokensFile, '--upstream', `exchange=${up.url}`,
    '--upstream', `exchange.wsApi=${ws}`, '--upstream', `exchange.streams=${ws}`], {}), { logger: createLogger('silent') });
  tap = await startTap(gw.url);
});
test.before.each(async () => { await up.reset(); tap.sent.length = 0; });
test.after(async () => {
  await tap?.close();
  await gw?.close();
  await up?.stop();
});

test(`ccxt ${ccxt.version}: POST /sapi/v1/userListenToken reaches the upstream as ccxt sent it (API key, form body, no signature)`, async () => {
  assert.is(ccxt.version, '4.5.84');
  const x = client(TOKENS.bot);
  const cross = await x.sapiPostUserListenToken({});
  const isolated = await x.sapiPostUserListenToken({ symbol: 'BNBUSDT', isIsolated: true, validity: 3_600_000 });
  for (const answer of [cross, isolated]) assert.equal([typeof answer.token, typeof answer.expirationTime], ['string', 'number']);
  const records = await up.records();
  assert.equal(records.map((r) => ({ method: r.method, url: r.url, body: r.body })), tap.sent, 'forwarded byte for byte');
  assert.equal(records.map((r) => [r.method, r.url.split('?')[0], r.headers['x-mbx-apikey'], r.verified]),
    [['POST', '/sapi/v1/userListenToken', HMAC_KEY, null], ['POST', '/sapi/v1/userListenToken', HMAC_KEY, null]]);
  assert.ok(records.every((r) => !/signature=/.test(r.url + r.body) && r.headers.authorization === undefined), 'no signature, no gateway token upstream');
  assert.match(records[1].body, /isIsolated=true/);
  assert.match(records[1].body, /symbol=BNBUSDT/);
});

test('ws-api userDataStream.subscribe.listenToken reaches the upstream with the token; events arrive wrapped', async () => {
  const { token } = await client(TOKENS.bot).sapiPostUserListenToken({});
  const c = await open(`${wsBase()}/ws-api/v3`, { headers: bearer(TOKENS.bot) });
  c.ws.send(JSON.stringify({ id: 'margin', method: 'userDataStream.subscribe.listenToken', params: { listenToken: token } }));
  const answer = JSON.parse(String((await nextMessage(c.ws)).data));
  assert.equal([answer.id, answer.status, typeof answer.result.subscriptionId, typeof answer.result.expirationTime], ['margin', 200, 'number', 'number']);
  assert.equal((await up.userData()).frames.map((f) => [f.method, f.params.listenToken]), [['userDataStream.subscribe.listenToken', token]]);
  await up.emit(EVENT);
  assert.equal(JSON.parse(String((await nextMessage(c.ws)).data)), { subscriptionId: answer.result.subscriptionId, event: EVENT });
  c.ws.close();
});

const sleep = (ms: number) => new Promise<undefined>((r) => setTimeout(() => r(undefined), ms));

/**
 * Send `event` to `account` until `watch` gives a value: ccxt registers what it waits for only once
 * the subscribe answer is handled, and an event that comes before that is not kept for it. At most 15 s.
 */
async function deliver<T>(watch: Promise<T>, event: unknown, account: string): Promise<T> {
  for (let i = 0; i < 75; i++) {
    assert.is(await up.emit(event, account), 1, `one subscription of ${account}`);
    const got = await Promise.race([watch.then((v) => ({ v })), sleep(200)]);
    if (got) return got.v;
  }
  throw new Error(`ccxt's watch got nothing from the events sent to ${account} in 15 s`);
}

test(`ccxt ${ccxt.version} margin watches through the gateway: watchBalance (cross) and watchOrders (isolated) get the account's events`, async () => {
  const cross = client(TOKENS.bot);
  const isolated = client(TOKENS.bot); // ccxt keeps one margin listen token per instance
  try {
    for (const x of [cross, isolated]) await x.loadHttpProxyAgent(); // ccxt's own step for a ws:// URL (plain text on loopback)
    const balance = cross.watchBalance({ type: 'margin' }) as Promise<Record<string, any>>;
    const orders = isolated.watchOrders('BNB/USDT', undefined, undefined, { type: 'margin', marginMode: 'isolated' }) as Promise<Record<string, any>[]>;
    for (const p of [balance, orders]) p.catch(() => {}); // awaited below: a failure is reported there, not as an unhandled rejection
    for (let i = 0; i < 750 && (await up.userData()).margin.length < 2; i++) await sleep(20); // loadMarkets first: seconds on a busy machine
    assert.equal((await up.userData()).margin.map((m) => m.account).sort(), ['BNBUSDT', 'margin']);
    const got = await deliver(balance, EVENT, 'margin');
    assert.equal([got.BNB?.free, got.BNB?.used], [1, 0]);
    const order = { e: 'executionReport', E: 1499405658658, s: 'BNBUSDT', c: 'c1', S: 'BUY', o: 'LIMIT', f: 'GTC', q: '1.00000000', p: '300.00000000', x: 'NEW', X: 'NEW', i: 42, l: '0', z: '0', L: '0', n: '0', N: null, T: 1499405658657, O: 1499405658657, Z: '0', Y: '0', Q: '0' };
    const placed = await deliver(orders, order, 'BNBUSDT');
    assert.equal(placed.map((o) => [o.id, o.symbol, o.side, o.status]), [['42', 'BNB/USDT', 'buy', 'open']]);
    // Everything it asked of the REST API went through as it sent it: the two listen tokens (cross, then isolated with its symbol).
    const tokens = (await up.records()).filter((r) => r.url === '/sapi/v1/userListenToken').map((r) => r.body);
    assert.equal(tokens.sort(), ['', 'symbol=BNBUSDT&isIsolated=true']);
  } finally {
    // close() rejects the futures ccxt keeps for each subscription (nobody awaits them) with ExchangeClosedByUser: only that is let pass.
    const closedByUser = (e: unknown) => { if ((e as Error)?.name !== 'ExchangeClosedByUser') throw e; };
    process.on('unhandledRejection', closedByUser);
    await Promise.race([Promise.all([cross.close(), isolated.close()]), sleep(5000)]);
    await sleep(20);
    process.off('unhandledRejection', closedByUser);
  }
});

test('a token without the user-data right: 403 for the listen token and its subscription, nothing forwarded', async () => {
  const r = await fetch(`${gw.url}/sapi/v1/userListenToken`, { method: 'POST', headers: { ...bearer(TOKENS.narrow), 'X-MBX-APIKEY': HMAC_KEY } });
  assert.is(r.status, 403);
  assert.match(((await r.json()) as { msg: string }).msg, /user-data right/);
  const c = await open(`${wsBase()}/ws-api/v3`, { headers: bearer(TOKENS.narrow) });
  c.ws.send(JSON.stringify({ id: 1, method: 'userDataStream.subscribe.listenToken', params: { listenToken: 'x' } }));
  assert.is(JSON.parse(String((await nextMessage(c.ws)).data)).status, 403);
  c.ws.close();
  assert.equal((await up.records()).length, 0);
  assert.equal((await up.userData()).frames, []);
});

test('the listen token is new in 2025.10.06: 404 naming it at an older release', async () => {
  const r = await fetch(`${gw.url}/@2025.09.29/sapi/v1/userListenToken`, { method: 'POST', headers: { ...bearer(TOKENS.bot), 'X-MBX-APIKEY': HMAC_KEY } });
  assert.is(r.status, 404);
  assert.match(((await r.json()) as { msg: string }).msg, /added in 2025\.10\.06/);
});

/** A gateway whose upstream speaks `release` (as the exchange did on that day), serving it. */
async function gatewayOn(release: string): Promise<RunningGateway> {
  return startGateway(readConfig(['--port', '0', '--release', release, '--upstream-release', `exchange=${release}`, '--tokens-file', tokensFile,
    '--upstream', `exchange=${up.url}`], {}), { logger: createLogger('silent') });
}

test('margin listen keys: served by an upstream of the release before 2026.01.21 (deprecated since 2025.10.06); 410 naming the listen-token flow from it on', async () => {
  const from = releases.indexOf('2026.01.21');
  assert.ok(from > 0 && releases.indexOf('2025.10.06') < from);
  const auth = { ...bearer(TOKENS.bot), 'X-MBX-APIKEY': HMAC_KEY };
  for (const release of releases.slice(from - 1)) {
    const g = await gatewayOn(release);
    try {
      for (const path of ['/sapi/v1/userDataStream', '/sapi/v1/userDataStream/isolated?symbol=BNBUSDT']) {
        const r = await fetch(`${g.url}${path}`, { method: 'POST', headers: auth });
        const text = await r.text();
        if (release === releases[from - 1]) {
          assert.is(r.status, 200, `${path} at ${release}: ${text}`);
          assert.ok(r.headers.get('deprecation'), `${path} deprecated at ${release}`);
          continue;
        }
        assert.is(r.status, 410, `${path} at ${release}: ${text}`);
        const { msg } = JSON.parse(text) as { msg: string };
        assert.match(msg, /removed in 2026\.01\.21/);
        assert.match(msg, /POST \/sapi\/v1\/userListenToken, then ws-api userDataStream\.subscribe\.listenToken/);
      }
    } finally {
      await g.close();
    }
  }
  // At the newest release pinned through the main gateway too.
  const r = await fetch(`${gw.url}/sapi/v1/userDataStream`, { method: 'POST', headers: auth });
  assert.is(r.status, 410);
  assert.equal((await up.records()).map((x) => x.url.split('?')[0]), ['/sapi/v1/userDataStream', '/sapi/v1/userDataStream/isolated'], 'only the calls before the retirement were sent');
});

test.run();
