// ccxt's binance client as the client tests use it: pointed at a local URL instead of api.binance.com,
// and the unified calls they make, as its users write them (spot markets of BNB/USDT; the fixtures of
// test/clients/fixtures answer them with realistic shapes so ccxt parses them and goes on).
import { createRequire } from 'node:module';
import { API_KEY, SECRET } from '../support/gateway.js';
import { ROOT } from '../support/processes.js';

/** The stand-in's answers ccxt's unified calls parse. */
export const FIXTURES = `${ROOT}test/clients/fixtures`;

export type Exchange = Record<string, any>;

export const ccxt = createRequire(import.meta.url)('ccxt') as { version: string; binance: new (config: Record<string, unknown>) => Exchange };

/** A binance client whose every api.binance.com URL (api/v3, sapi v1–v4) goes to `url`; the futures hosts are never asked (spot markets only). */
export function binanceAt(url: string, config: Record<string, unknown> = {}): Exchange {
  const exchange = new ccxt.binance({ apiKey: API_KEY, secret: SECRET, options: { fetchMarkets: { types: ['spot'] } }, ...config });
  const api = exchange.urls.api as Record<string, string>;
  for (const [k, v] of Object.entries(api)) if (v.startsWith('https://api.binance.com')) api[k] = v.replace('https://api.binance.com', url);
  return exchange;
}

export const CALLS: [string, (x: Exchange) => Promise<unknown>][] = [
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

/** Each unified call in turn: the ones that threw, with what they threw. */
export async function unifiedFailures(exchange: Exchange): Promise<string[]> {
  const failed: string[] = [];
  for (const [name, call] of CALLS) {
    try {
      await call(exchange);
    } catch (e) {
      failed.push(`${name}: ${(e as Error).message.slice(0, 300)}`);
    }
  }
  return failed;
}
