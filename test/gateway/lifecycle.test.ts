// Lifecycle answers at pinned releases: 410 for removed, 404 for not yet added, 405 with Allow,
// Deprecation/Link/Sunset on deprecated endpoints, X-Gateway-Release on every response.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { API_KEY, SECRET, gatewayAt, signed, ts } from '../support/gateway.js';
import { startUpstream, type Upstream } from '../support/processes.js';

const test = suite('gateway lifecycle');
let upstream: Upstream;

test.before(async () => { upstream = await startUpstream({ [API_KEY]: { hmac: SECRET } }); });
test.after(async () => { await upstream.stop(); });

test('removed endpoint → 410 naming the removal release and the replacement', async () => {
  const gw = await gatewayAt('3.6.0', upstream.url);
  try {
    await upstream.reset();
    const res = await fetch(`${gw.url}/sapi/v1/margin/loan?${signed(`asset=BTC&amount=1&${ts()}`)}`, { method: 'POST', headers: { 'X-MBX-APIKEY': API_KEY } });
    assert.is(res.status, 410);
    assert.is(res.headers.get('x-gateway-release'), '3.6.0');
    const body = await res.json() as { code: number; msg: string };
    assert.type(body.code, 'number');
    assert.ok(body.code < 0);
    assert.match(body.msg, /removed in 3\.6\.0/);
    assert.match(body.msg, /this gateway serves 3\.6\.0/);
    assert.match(body.msg, /borrow-repay/);
    assert.equal(await upstream.records(), []);
  } finally { await gw.close(); }
});

test('endpoint added after the pin → 404 saying when it was added', async () => {
  const gw = await gatewayAt('1.16.0', upstream.url);
  try {
    await upstream.reset();
    const res = await fetch(`${gw.url}/api/v3/uiKlines?symbol=BTCUSDT&interval=1m`);
    assert.is(res.status, 404);
    assert.is(res.headers.get('x-gateway-release'), '1.16.0');
    const body = await res.json() as { msg: string };
    assert.match(body.msg, /added in 1\.17\.0; this gateway serves 1\.16\.0/);
    assert.equal(await upstream.records(), []);
    // and at 1.17.0 it is served
    const gw2 = await gatewayAt('1.17.0', upstream.url);
    try {
      const ok = await fetch(`${gw2.url}/api/v3/uiKlines?symbol=BTCUSDT&interval=1s`);
      assert.is(ok.status, 200);
    } finally { await gw2.close(); }
  } finally { await gw.close(); }
});

test('deprecated endpoint → served with Deprecation and Link headers', async () => {
  const gw = await gatewayAt('3.8.0', upstream.url);
  try {
    await upstream.reset();
    const q = signed(`symbol=BNBUSDT&side=SELL&quantity=1&price=400&stopPrice=300&stopLimitPrice=290&stopLimitTimeInForce=GTC&${ts()}`);
    const res = await fetch(`${gw.url}/api/v3/order/oco?${q}`, { method: 'POST', headers: { 'X-MBX-APIKEY': API_KEY } });
    assert.is(res.status, 200, await res.clone().text());
    const dep = res.headers.get('deprecation');
    assert.is(dep, `@${Date.parse('2024-07-04T00:00:00Z') / 1000}`);
    assert.is(res.headers.get('link'), '</api/v3/orderList/oco>; rel="successor-version"');
    assert.is(res.headers.get('sunset'), null, 'no release removes it, so no Sunset');
    const [rec] = await upstream.records();
    assert.is(rec.verified, true);
    // not deprecated before 3.8.0
    const gw2 = await gatewayAt('3.7.0', upstream.url);
    try {
      const r2 = await fetch(`${gw2.url}/api/v3/order/oco?${signed(`symbol=BNBUSDT&side=SELL&quantity=1&price=400&stopPrice=300&${ts()}`)}`, { method: 'POST', headers: { 'X-MBX-APIKEY': API_KEY } });
      assert.is(r2.status, 200);
      assert.is(r2.headers.get('deprecation'), null);
    } finally { await gw2.close(); }
  } finally { await gw.close(); }
});

test('path alive with another method → 405 with Allow', async () => {
  const gw = await gatewayAt('3.12.0', upstream.url);
  try {
    const res = await fetch(`${gw.url}/api/v3/exchangeInfo`, { method: 'DELETE' });
    assert.is(res.status, 405);
    assert.is(res.headers.get('allow'), 'GET, HEAD');
    assert.is(res.headers.get('x-gateway-release'), '3.12.0');
  } finally { await gw.close(); }
});

test('unknown path → 404 in the exchange envelope, with the release header', async () => {
  const gw = await gatewayAt('3.12.0', upstream.url);
  try {
    const res = await fetch(`${gw.url}/api/v3/noSuchThing`);
    assert.is(res.status, 404);
    assert.is(res.headers.get('x-gateway-release'), '3.12.0');
    const body = await res.json() as { code: number; msg: string };
    assert.match(body.msg, /no endpoint GET \/api\/v3\/noSuchThing/);
  } finally { await gw.close(); }
});

test('security taken at the pin: historicalTrades needs a key before 3.2.0 only', async () => {
  for (const [release, status] of [['3.1.1', 401], ['3.2.0', 200]] as const) {
    const gw = await gatewayAt(release, upstream.url);
    try {
      const res = await fetch(`${gw.url}/api/v3/historicalTrades?symbol=BTCUSDT`);
      assert.is(res.status, status, `at ${release}`);
      if (status === 401) assert.is(((await res.json()) as { code: number }).code, -2014);
    } finally { await gw.close(); }
  }
});

test.run();
