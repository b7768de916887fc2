// The request forms real clients send, through a gateway with --strict at 3.12.0 against the local
// recording upstream: list parameters as repeated keys (asset=A&asset=B, the form ccxt sends and the
// docs show) and as JSON array text (symbols=["A","B"]), each item checked; a scalar parameter sent
// twice still refused (-1101); signing parameters on an unsigned /sapi endpoint (ccxt signs every
// /sapi call). What is forwarded is byte-identical to what was sent.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import type { RunningGateway } from '../../src/server.js';
import { API_KEY, SECRET, gatewayAt, signed, ts } from '../support/gateway.js';
import { startUpstream, type Upstream } from '../support/processes.js';

const test = suite('request forms under --strict');
let upstream: Upstream;
let gw: RunningGateway;

test.before(async () => {
  upstream = await startUpstream({ [API_KEY]: { hmac: SECRET } });
  gw = await gatewayAt('3.12.0', upstream.url, ['--strict']);
});
test.after(async () => {
  await gw.close();
  await upstream.stop();
});

async function send(method: string, path: string, query: string, body?: string) {
  await upstream.reset();
  const res = await fetch(`${gw.url}${path}?${query}`, {
    method, headers: { 'x-mbx-apikey': API_KEY, ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) }, body,
  });
  const json = await res.json() as { code?: number; msg?: string; ok?: boolean };
  const rec = await upstream.records();
  return { status: res.status, json, rec };
}

test('repeated keys of a style: repeated list are items, forwarded as sent', async () => {
  const q = signed(`asset=BTC&asset=ETH&accountType=SPOT&${ts()}`);
  const r = await send('POST', '/sapi/v1/asset/dust', q);
  assert.is(r.status, 200, JSON.stringify(r.json));
  assert.is(r.rec.length, 1);
  assert.is(r.rec[0].url, `/sapi/v1/asset/dust?${q}`);
  assert.is(r.rec[0].verified, true);
});

test('repeated keys across query and form body count as one list', async () => {
  const q = `asset=BTC&${ts()}`;
  const body = 'asset=ETH';
  const r = await send('POST', '/sapi/v1/asset/dust', signed(q, body), body);
  assert.is(r.status, 200, JSON.stringify(r.json));
  assert.is(r.rec[0].body, body);
});

test('an empty item of a repeated list is refused, naming the parameter', async () => {
  const r = await send('POST', '/sapi/v1/asset/dust', signed(`asset=BTC&asset=&${ts()}`));
  assert.is(r.status, 400);
  assert.is(r.json.code, -1130);
  assert.match(r.json.msg!, /asset/);
  assert.is(r.rec.length, 0);
});

test('a scalar parameter sent twice is still refused (-1101)', async () => {
  const r = await send('GET', '/sapi/v1/capital/deposit/hisrec', signed(`coin=BTC&coin=ETH&${ts()}`));
  assert.is(r.status, 400);
  assert.is(r.json.code, -1101);
  assert.match(r.json.msg!, /'coin' was sent more than once/);
  assert.is(r.rec.length, 0);
});

test('a JSON-array list (symbols) is accepted and forwarded byte for byte; repeated keys are not its form', async () => {
  const q = 'symbols=%5B%22BTCUSDT%22,%22BNBBTC%22%5D';
  const ok = await send('GET', '/api/v3/ticker/price', q);
  assert.is(ok.status, 200, JSON.stringify(ok.json));
  assert.is(ok.rec[0].url, `/api/v3/ticker/price?${q}`);
  const raw = await send('GET', '/api/v3/ticker/24hr', 'symbols=["BTCUSDT","BNBBTC"]&type=MINI');
  assert.is(raw.status, 200, JSON.stringify(raw.json));
  // fetch itself percent-encodes the quotes (WHATWG URL); the gateway forwards what fetch sent
  assert.is(raw.rec[0].url, `/api/v3/ticker/24hr${new URL('http://h/?symbols=["BTCUSDT","BNBBTC"]&type=MINI').search}`);
  const twice = await send('GET', '/api/v3/ticker/price', 'symbols=BTCUSDT&symbols=BNBBTC');
  assert.is(twice.json.code, -1101);
});

test('each item of an enum list is checked: a bad permission is named', async () => {
  const r = await send('GET', '/api/v3/exchangeInfo', 'permissions=%5B%22SPOT%22,%22NOPE%22%5D');
  assert.is(r.status, 400);
  assert.is(r.json.code, -1130);
  assert.match(r.json.msg!, /item 'NOPE'/);
});

test('one of symbol or symbols is required where the docs say so (ticker, tradingDay), not elsewhere', async () => {
  for (const path of ['/api/v3/ticker', '/api/v3/ticker/tradingDay']) {
    const none = await send('GET', path, 'type=MINI');
    assert.is(none.status, 400, path);
    assert.is(none.json.code, -1102);
    assert.match(none.json.msg!, /One of 'symbol' or 'symbols' must be sent/);
    const list = await send('GET', path, 'symbols=%5B%22BNBUSDT%22%5D');
    assert.is(list.status, 200, `${path}: ${JSON.stringify(list.json)}`);
  }
  assert.is((await send('GET', '/api/v3/ticker/price', '')).status, 200, 'all prices: neither is needed');
});

test('signing parameters on an unsigned /sapi endpoint pass --strict and are still checked', async () => {
  const q = signed(`${ts()}&recvWindow=5000`);
  const ok = await send('GET', '/sapi/v1/margin/allPairs', q);
  assert.is(ok.status, 200, JSON.stringify(ok.json));
  assert.is(ok.rec[0].url, `/sapi/v1/margin/allPairs?${q}`);
  const bad = await send('GET', '/sapi/v1/margin/allPairs', signed(`${ts()}&recvWindow=90000`));
  assert.is(bad.json.code, -1130);
  assert.match(bad.json.msg!, /recvWindow/);
  const api = await send('GET', '/api/v3/depth', `symbol=BNBBTC&${ts()}`);
  assert.is(api.json.code, -1103, 'not on an unsigned /api/v3 endpoint');
});

test.run();
