// ccxt, the most used multi-exchange client, as its users call it: 13 unified calls through a
// recording tap → the gateway pinned at 3.12.0 WITH --strict → the local verifying upstream, which
// answers with realistic shapes (test/clients/fixtures) so ccxt parses them and goes on. ccxt signs
// every /sapi call and sends list parameters its own way: none of it may be refused, and every
// forwarded request must be byte-identical to what ccxt sent.
import { createRequire } from 'node:module';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import type { RunningGateway } from '../../src/server.js';
import { API_KEY, SECRET, gatewayAt } from '../support/gateway.js';
import { ROOT, startUpstream, type Upstream } from '../support/processes.js';
import { PIN } from './sample-values.js';
import { startTap, type Tap } from './tap.js';

const require = createRequire(import.meta.url);
type Exchange = Record<string, any>;
const ccxt = require('ccxt') as { binance: new (config: Record<string, unknown>) => Exchange };

const test = suite(`ccxt through the gateway at ${PIN} --strict`);
let upstream: Upstream;
let gw: RunningGateway;
let tap: Tap;
let exchange: Exchange;

test.before(async () => {
  upstream = await startUpstream({ [API_KEY]: { hmac: SECRET } }, `${ROOT}test/clients/fixtures`);
  gw = await gatewayAt(PIN, upstream.url, ['--strict']);
  tap = await startTap(gw.url);
  exchange = new ccxt.binance({ apiKey: API_KEY, secret: SECRET, options: { fetchMarkets: { types: ['spot'] } } });
  // Every api.binance.com URL (api/v3, sapi v1–v4) goes to the tap; the futures hosts are never asked (spot markets only).
  const api = exchange.urls.api as Record<string, string>;
  for (const [k, v] of Object.entries(api)) if (v.startsWith('https://api.binance.com')) api[k] = v.replace('https://api.binance.com', tap.url);
});
test.after(async () => {
  await tap?.close();
  await gw?.close();
  await upstream?.stop();
});

const CALLS: [string, (x: Exchange) => Promise<unknown>][] = [
  ['loadMarkets', (x) => x.loadMarkets()],
  ['fetchTicker', (x) => x.fetchTicker('BNB/USDT')],
  ['fetchOrderBook', (x) => x.fetchOrderBook('BNB/USDT', 5)],
  ['fetchOHLCV', (x) => x.fetchOHLCV('BNB/USDT', '1m', undefined, 5)],
  ['fetchTrades', (x) => x.fetchTrades('BNB/USDT', undefined, 5)],
  ['createOrder', (x) => x.createOrder('BNB/USDT', 'limit', 'buy', 1, 300)],
  ['cancelOrder', (x) => x.cancelOrder('1', 'BNB/USDT')],
  ['fetchOrder', (x) => x.fetchOrder('1', 'BNB/USDT')],
  ['fetchOpenOrders', (x) => x.fetchOpenOrders('BNB/USDT')],
  ['fetchBalance', (x) => x.fetchBalance()],
  ['fetchMyTrades', (x) => x.fetchMyTrades('BNB/USDT')],
  ['fetchDeposits', (x) => x.fetchDeposits()],
  ['fetchWithdrawals', (x) => x.fetchWithdrawals()],
];

test(`${CALLS.length} unified calls succeed with --strict, forwarded byte for byte`, async () => {
  const failed: string[] = [];
  for (const [name, call] of CALLS) {
    try {
      await call(exchange);
    } catch (e) {
      failed.push(`${name}: ${(e as Error).message.slice(0, 300)}`);
    }
  }
  const sapi = tap.sent.filter((s) => s.url.startsWith('/sapi/'));
  console.log(`ccxt: ${CALLS.length - failed.length}/${CALLS.length} unified calls, ${tap.sent.length} requests (${sapi.length} signed /sapi)`);
  assert.equal(failed, []);
  assert.ok(sapi.length >= 3 && sapi.every((s) => /[?&]signature=/.test(s.url)), 'ccxt signed its /sapi calls');
  const forwarded = (await upstream.records()).map((r) => ({ method: r.method, url: r.url, body: r.body }));
  assert.equal(forwarded, tap.sent, 'forwarded byte for byte');
  assert.ok((await upstream.records()).every((r) => r.verified !== false), 'every signature verified at the upstream');
});

test.run();
