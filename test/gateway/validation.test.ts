// Validation at the pinned release, in the exchange's envelope; nothing rejected reaches the upstream.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import type { RunningGateway } from '../../src/server.js';
import { API_KEY, SECRET, gatewayAt, signed, ts } from '../support/gateway.js';
import { startUpstream, type Upstream } from '../support/processes.js';

const test = suite('gateway validation');
let upstream: Upstream;
const gws = new Map<string, RunningGateway>();
const at = async (release: string, extra: string[] = []) => {
  const key = `${release} ${extra.join(' ')}`;
  if (!gws.has(key)) gws.set(key, await gatewayAt(release, upstream.url, extra));
  return gws.get(key)!;
};
const send = async (release: string, method: string, path: string, query: string, extra: string[] = []) => {
  const gw = await at(release, extra);
  const res = await fetch(`${gw.url}${path}?${query}`, { method, headers: { 'X-MBX-APIKEY': API_KEY } });
  return { status: res.status, body: await res.json() as { code: number; msg: string } };
};

test.before(async () => { upstream = await startUpstream({ [API_KEY]: { hmac: SECRET } }); });
test.before.each(async () => { await upstream.reset(); });
test.after(async () => {
  for (const g of gws.values()) await g.close();
  await upstream.stop();
});

test('parameter added after the pin → 400 -1103 naming it and its release', async () => {
  const r = await send('3.8.0', 'GET', '/api/v3/account', signed(`omitZeroBalances=true&${ts()}`));
  assert.is(r.status, 400);
  assert.is(r.body.code, -1103);
  assert.match(r.body.msg, /omitZeroBalances/);
  assert.match(r.body.msg, /added in 3\.8\.1; this gateway serves 3\.8\.0/);
  assert.equal(await upstream.records(), []);
  const ok = await send('3.8.1', 'GET', '/api/v3/account', signed(`omitZeroBalances=true&${ts()}`));
  assert.is(ok.status, 200);
  assert.is((await upstream.records()).length, 1);
});

test('enum value removed at the pin → 400 -1130; alive one release earlier → forwarded', async () => {
  const q = () => signed(`type=MAIN_PAY&asset=USDT&amount=1&${ts()}`);
  const r = await send('1.7.0', 'POST', '/sapi/v1/asset/transfer', q());
  assert.is(r.status, 400);
  assert.is(r.body.code, -1130);
  assert.match(r.body.msg, /'MAIN_PAY'/);
  assert.match(r.body.msg, /'type'/);
  assert.match(r.body.msg, /removed in 1\.7\.0/);
  assert.equal(await upstream.records(), []);
  // An upstream that speaks 1.6.0 itself: nothing to migrate (at the default, the newest, MAIN_PAY would
  // become MAIN_FUNDING, a change of signed bytes that needs the key: test/versions covers that).
  const ok = await send('1.6.0', 'POST', '/sapi/v1/asset/transfer', q(), ['--upstream-release', 'exchange=1.6.0']);
  assert.is(ok.status, 200, ok.body.msg);
  const recs = await upstream.records();
  assert.is(recs.length, 1);
  assert.is(recs[0].verified, true);
});

test('strategyType below 1000000 → 400 -1130', async () => {
  const r = await send('3.12.0', 'POST', '/api/v3/order', signed(`symbol=BNBUSDT&side=BUY&type=MARKET&quantity=1&strategyType=999&${ts()}`));
  assert.is(r.status, 400);
  assert.is(r.body.code, -1130);
  assert.match(r.body.msg, /strategyType/);
  assert.match(r.body.msg, /999/);
  assert.match(r.body.msg, />= 1000000/);
  assert.equal(await upstream.records(), []);
});

test('permissions combined with symbol → 400', async () => {
  const r = await send('3.12.0', 'GET', '/api/v3/exchangeInfo', 'symbol=BNBUSDT&permissions=SPOT');
  assert.is(r.status, 400);
  assert.match(r.body.msg, /'permissions' and 'symbol'|'symbol' and 'permissions'/);
  const r2 = await send('3.12.0', 'GET', '/api/v3/exchangeInfo', `symbols=${encodeURIComponent('["BNBUSDT"]')}&permissions=SPOT`);
  assert.is(r2.status, 400);
  assert.equal(await upstream.records(), []);
});

test('list-valued permissions: each item checked against the enum', async () => {
  const ok = await send('3.12.0', 'GET', '/api/v3/exchangeInfo', `permissions=${encodeURIComponent('["MARGIN","LEVERAGED"]')}`);
  assert.is(ok.status, 200, ok.body.msg);
  const one = await send('3.12.0', 'GET', '/api/v3/exchangeInfo', 'permissions=SPOT');
  assert.is(one.status, 200, one.body.msg);
  const bad = await send('3.12.0', 'GET', '/api/v3/exchangeInfo', `permissions=${encodeURIComponent('["SPOT","FUTURES_X"]')}`);
  assert.is(bad.status, 400);
  assert.is(bad.body.code, -1130);
  assert.match(bad.body.msg, /item 'FUTURES_X'/);
  const early = await send('1.17.0', 'GET', '/api/v3/exchangeInfo', 'permissions=SPOT');
  assert.is(early.status, 400);
  assert.match(early.body.msg, /added in 1\.18\.0/);
});

test('ticker type accepts FULL and MINI only, from 1.17.0', async () => {
  const bad = await send('3.12.0', 'GET', '/api/v3/ticker/24hr', 'symbol=BNBUSDT&type=HALF');
  assert.is(bad.status, 400);
  assert.is(bad.body.code, -1130);
  assert.match(bad.body.msg, /FULL, MINI/);
  const early = await send('1.16.0', 'GET', '/api/v3/ticker/24hr', 'symbol=BNBUSDT&type=MINI');
  assert.is(early.status, 400);
  assert.is(early.body.code, -1103);
  assert.equal(await upstream.records(), []);
  const ok = await send('3.12.0', 'GET', '/api/v3/ticker/24hr', 'symbol=BNBUSDT&type=MINI');
  assert.is(ok.status, 200);
});

test('kline interval 1s only from 1.17.0', async () => {
  const bad = await send('1.16.0', 'GET', '/api/v3/klines', 'symbol=BNBUSDT&interval=1s');
  assert.is(bad.status, 400);
  assert.match(bad.body.msg, /added in 1\.17\.0/);
  const ok = await send('1.17.0', 'GET', '/api/v3/klines', 'symbol=BNBUSDT&interval=1s');
  assert.is(ok.status, 200);
});

test('SIGNED endpoint without key → 401 -2014; without timestamp or signature → 400 -1102', async () => {
  const gw = await at('3.12.0');
  const nokey = await fetch(`${gw.url}/api/v3/account?${signed(ts())}`);
  assert.is(nokey.status, 401);
  assert.is(((await nokey.json()) as { code: number }).code, -2014);
  const nots = await send('3.12.0', 'GET', '/api/v3/account', signed('omitZeroBalances=true'));
  assert.is(nots.status, 400);
  assert.is(nots.body.code, -1102);
  assert.match(nots.body.msg, /timestamp/);
  const nosig = await send('3.12.0', 'GET', '/api/v3/account', ts());
  assert.is(nosig.status, 400);
  assert.is(nosig.body.code, -1102);
  assert.match(nosig.body.msg, /signature/);
  assert.equal(await upstream.records(), []);
});

test('wrong types are named: integer parameter given text', async () => {
  const r = await send('3.12.0', 'GET', '/api/v3/klines', 'symbol=BNBUSDT&interval=1m&limit=lots');
  assert.is(r.status, 400);
  assert.is(r.body.code, -1130);
  assert.match(r.body.msg, /'limit'/);
  assert.match(r.body.msg, /'lots'/);
  assert.equal(await upstream.records(), []);
});

test('--strict rejects parameters the catalogue does not know; default forwards them', async () => {
  const strict = await send('3.12.0', 'GET', '/api/v3/klines', 'symbol=BNBUSDT&interval=1m&bogus=1', ['--strict']);
  assert.is(strict.status, 400);
  assert.is(strict.body.code, -1103);
  assert.match(strict.body.msg, /bogus/);
  assert.equal(await upstream.records(), []);
  const lax = await send('3.12.0', 'GET', '/api/v3/klines', 'symbol=BNBUSDT&interval=1m&bogus=1');
  assert.is(lax.status, 200);
});

test('a parameter sent twice → 400 -1101 naming it; query and form body count together', async () => {
  const r = await send('3.12.0', 'GET', '/api/v3/klines', 'symbol=BNBUSDT&interval=1m&interval=1h');
  assert.is(r.status, 400);
  assert.is(r.body.code, -1101);
  assert.match(r.body.msg, /'interval' was sent more than once/);
  const gw = await at('3.12.0');
  const body = 'symbol=BNBUSDT&side=BUY&type=MARKET&quantity=1';
  const res = await fetch(`${gw.url}/api/v3/order?symbol=BNBUSDT&${signed(ts(), body)}`, {
    method: 'POST', body, headers: { 'X-MBX-APIKEY': API_KEY, 'Content-Type': 'application/x-www-form-urlencoded' },
  });
  assert.is(res.status, 400);
  assert.match(((await res.json()) as { msg: string }).msg, /'symbol' was sent more than once/);
  assert.equal(await upstream.records(), []);
});

test('the gateway keeps serving after a burst of bad requests', async () => {
  const gw = await at('3.12.0');
  const bad = await Promise.all(Array.from({ length: 50 }, (_, i) => fetch(`${gw.url}/api/v3/klines?symbol=BNBUSDT&interval=${i}x`).then((r) => r.status)));
  assert.ok(bad.every((s) => s === 400));
  const ok = await fetch(`${gw.url}/api/v3/klines?symbol=BNBUSDT&interval=1m`);
  assert.is(ok.status, 200);
});

test.run();
