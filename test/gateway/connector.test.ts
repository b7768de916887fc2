// A real client of the exchange API, @binance/connector, pointed at the gateway (HMAC key),
// against the local verifying upstream: many methods across market, trade, margin, wallet and
// sub-account succeed at 3.12.0; pinned where a method does not exist, its call fails with 404/410.
import { createRequire } from 'node:module';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import type { RunningGateway } from '../../src/server.js';
import { API_KEY, SECRET, gatewayAt } from '../support/gateway.js';
import { startUpstream, type Upstream } from '../support/processes.js';

const require = createRequire(import.meta.url);
type Client = Record<string, (...args: unknown[]) => Promise<{ status: number; data: { ok?: boolean; url?: string; verified?: boolean | null } }>>;
const { Spot } = require('@binance/connector') as { Spot: new (key: string, secret: string, opts: Record<string, unknown>) => Client };
const quiet = { log() {}, error() {}, info() {}, warn() {}, debug() {} };

const test = suite('@binance/connector through the gateway');
let upstream: Upstream;
let gw: RunningGateway;

test.before(async () => {
  upstream = await startUpstream({ [API_KEY]: { hmac: SECRET } });
  gw = await gatewayAt('3.12.0', upstream.url);
});
test.after(async () => {
  await gw.close();
  await upstream.stop();
});

/** [module, method, args, expected path] */
const CALLS: [string, string, unknown[], string][] = [
  ['market', 'ping', [], '/api/v3/ping'],
  ['market', 'exchangeInfo', [{ symbol: 'BNBUSDT' }], '/api/v3/exchangeInfo'],
  ['market', 'klines', ['BNBUSDT', '1m', { limit: 5 }], '/api/v3/klines'],
  ['market', 'uiklines', ['BNBUSDT', '1s', { limit: 5 }], '/api/v3/uiKlines'],
  ['market', 'depth', ['BNBUSDT', { limit: 5 }], '/api/v3/depth'],
  ['market', 'avgPrice', ['BNBUSDT'], '/api/v3/avgPrice'],
  ['market', 'ticker24hr', ['BNBUSDT', [], 'MINI'], '/api/v3/ticker/24hr'],
  ['trade', 'account', [{ omitZeroBalances: true }], '/api/v3/account'],
  ['trade', 'newOrder', ['BNBUSDT', 'BUY', 'LIMIT', { price: '350', quantity: 1, timeInForce: 'GTC', strategyType: 1000000 }], '/api/v3/order'],
  ['trade', 'getOrder', ['BNBUSDT', { orderId: 1 }], '/api/v3/order'],
  ['trade', 'openOrders', [{ symbol: 'BNBUSDT' }], '/api/v3/openOrders'],
  ['trade', 'myTrades', ['BNBUSDT', { limit: 10 }], '/api/v3/myTrades'],
  ['margin', 'marginAccount', [], '/sapi/v1/margin/account'],
  ['margin', 'newMarginOrder', ['BNBUSDT', 'BUY', 'MARKET', { quantity: 1, sideEffectType: 'AUTO_BORROW_REPAY' }], '/sapi/v1/margin/order'],
  ['margin', 'marginMaxBorrowable', ['BNB'], '/sapi/v1/margin/maxBorrowable'],
  ['margin', 'isolatedMarginAccountLimit', [], '/sapi/v1/margin/isolated/accountLimit'],
  ['wallet', 'systemStatus', [], '/sapi/v1/system/status'],
  ['wallet', 'coinInfo', [], '/sapi/v1/capital/config/getall'],
  ['wallet', 'depositHistory', [{ coin: 'USDT' }], '/sapi/v1/capital/deposit/hisrec'],
  ['wallet', 'userUniversalTransfer', ['MAIN_FUNDING', 'USDT', 1], '/sapi/v1/asset/transfer'],
  ['wallet', 'accountSnapshot', ['SPOT'], '/sapi/v1/accountSnapshot'],
  ['sub-account', 'subAccountList', [], '/sapi/v1/sub-account/list'],
  ['sub-account', 'subAccountAssets', ['sub@example.com'], '/sapi/v3/sub-account/assets'],
  ['sub-account', 'subAccountSpotSummary', [], '/sapi/v1/sub-account/spotSummary'],
];

test(`${CALLS.length} methods across market, trade, margin, wallet and sub-account succeed at 3.12.0`, async () => {
  const client = new Spot(API_KEY, SECRET, { baseURL: gw.url, logger: quiet });
  await upstream.reset();
  const failures: string[] = [];
  for (const [module, method, args, path] of CALLS) {
    try {
      const res = await client[method](...args);
      if (res.status !== 200 || !res.data.ok || !res.data.url?.startsWith(`${path}`)) failures.push(`${module}.${method}: ${res.status} ${JSON.stringify(res.data)}`);
    } catch (e) {
      const r = (e as { response?: { status: number; data: unknown } }).response;
      failures.push(`${module}.${method}: ${r ? `${r.status} ${JSON.stringify(r.data)}` : (e as Error).message}`);
    }
  }
  assert.equal(failures, []);
  const recs = await upstream.records();
  assert.is(recs.length, CALLS.length, 'each call reached the upstream once');
  const signedOnes = recs.filter((r) => r.verified !== null);
  assert.ok(signedOnes.length >= 15, `signed calls: ${signedOnes.length}`);
  assert.ok(signedOnes.every((r) => r.verified === true), 'every signature verified upstream');
  assert.equal([...new Set(CALLS.map((c) => c[0]))], ['market', 'trade', 'margin', 'wallet', 'sub-account']);
});

test('the time-unit header, added in 3.11.0, is refused at 3.10.0 and forwarded at 3.12.0', async () => {
  const client = new Spot(API_KEY, SECRET, { baseURL: gw.url, logger: quiet });
  await upstream.reset();
  const ok = await client.klines('BNBUSDT', '1m', { timeUnit: 'MICROSECOND' });
  assert.is(ok.status, 200);
  assert.is((await upstream.records())[0].headers['x-mbx-time-unit'], 'MICROSECOND');
  const old = await gatewayAt('3.10.0', upstream.url);
  try {
    const oldClient = new Spot(API_KEY, SECRET, { baseURL: old.url, logger: quiet });
    await oldClient.klines('BNBUSDT', '1m', { timeUnit: 'MICROSECOND' }).then(() => assert.unreachable('must be refused'), (e: { response: { status: number; data: { code: number; msg: string } } }) => {
      assert.is(e.response.status, 400);
      assert.is(e.response.data.code, -1103);
      assert.match(e.response.data.msg, /added in 3\.11\.0/);
    });
  } finally { await old.close(); }
});

test('pinned where a method does not exist, the real client gets the gateway\'s 404 / 410', async () => {
  const early = await gatewayAt('1.16.0', upstream.url);
  const late = await gatewayAt('3.6.0', upstream.url);
  try {
    await upstream.reset();
    const a = new Spot(API_KEY, SECRET, { baseURL: early.url, logger: quiet });
    await a.uiklines('BNBUSDT', '1m').then(() => assert.unreachable('uiKlines must not exist at 1.16.0'), (e: { response: { status: number; data: { msg: string } } }) => {
      assert.is(e.response.status, 404);
      assert.match(e.response.data.msg, /added in 1\.17\.0/);
    });
    // Connector 3.6.1 dropped its margin-loan method with the API; its generic signed request
    // (the one every named method uses) still reaches the old path.
    const b = new Spot(API_KEY, SECRET, { baseURL: late.url, logger: quiet });
    let refused = false;
    await b.signRequest('POST', '/sapi/v1/margin/loan', { asset: 'BNB', amount: 1 }).then(() => assert.unreachable('margin loan must be gone at 3.6.0'), (e: { response: { status: number; data: { code: number; msg: string } } }) => {
      assert.is(e.response.status, 410);
      assert.is(e.response.data.code, -1020);
      assert.match(e.response.data.msg, /removed in 3\.6\.0; this gateway serves 3\.6\.0; use POST \/sapi\/v1\/margin\/borrow-repay/);
      refused = true;
    });
    assert.ok(refused);
    assert.equal(await upstream.records(), []);
  } finally {
    await early.close();
    await late.close();
  }
});

test.run();
