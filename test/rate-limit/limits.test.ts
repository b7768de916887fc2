// The limiter against the recording upstream, over real sockets: weight counted before forwarding,
// conditional weights, the upstream's counts and bans learned, orders counted per account.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { API_KEY, gatewayAt, SECRET, signed, ts } from '../support/gateway.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import type { RunningGateway } from '../../src/server.js';
import { catalogueWithLimits } from './small-limits.js';

const test = suite('rate limits (in-process store)');
let up: Upstream;
const gateways: RunningGateway[] = [];

test.before(async () => {
  up = await startUpstream({ [API_KEY]: { hmac: SECRET } });
});
test.after(async () => {
  for (const g of gateways) await g.close(0);
  await up.stop();
});

async function gateway(limits: { weight: number; orders?: number }, extra: string[] = []): Promise<RunningGateway> {
  const g = await gatewayAt('3.12.0', up.url, ['--catalogue', catalogueWithLimits(limits), ...extra]);
  gateways.push(g);
  return g;
}

const depth = (limit: number) => `/api/v3/depth?symbol=BTCUSDT&limit=${limit}`;
const forwarded = async (path: string) => (await up.records()).filter((r) => r.url.startsWith(path)).length;

async function get(g: RunningGateway, path: string, headers: Record<string, string> = {}) {
  const r = await fetch(g.url + path, { headers });
  return { status: r.status, headers: r.headers, body: await r.json() as { code?: number; msg?: string } };
}

test('a burst over REQUEST_WEIGHT: the excess is answered 429 -1003 with Retry-After and never forwarded', async () => {
  await up.reset();
  const g = await gateway({ weight: 100 });
  const answers = [];
  for (let i = 0; i < 25; i++) answers.push(await get(g, depth(100))); // weight 5 each: 20 fit in 100
  assert.equal(answers.map((a) => a.status), [...Array(20).fill(200), ...Array(5).fill(429)]);
  const refused = answers[24];
  assert.is(refused.body.code, -1003);
  assert.match(refused.body.msg!, /REQUEST_WEIGHT limit of 100 per 1m on \/api\/v3\/\* \(counted per gateway egress IP\)/);
  const retry = Number(refused.headers.get('retry-after'));
  assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
  assert.is(refused.headers.get('x-mbx-used-weight-1m'), '100');
  assert.is(await forwarded('/api/v3/depth'), 20);
  // Endpoints outside the limit's path family (/sapi) are not counted against it.
  assert.is.not((await get(g, '/sapi/v1/system/status')).status, 429);
});

test('conditional weights: depth limit=5000 costs 250, limit=100 costs 5', async () => {
  await up.reset();
  const g = await gateway({ weight: 300 });
  assert.is((await get(g, depth(5000))).status, 200); // 250 of 300
  const second = await get(g, depth(5000));
  assert.is(second.status, 429);
  assert.match(second.body.msg!, /this request \(250\) would exceed .*: 250 used/);
  for (let i = 0; i < 10; i++) assert.is((await get(g, depth(100))).status, 200, `limit=100 request ${i + 1} fits`); // 300
  assert.is((await get(g, depth(1))).status, 429);
  assert.is(await forwarded('/api/v3/depth'), 11);
  const metrics = await (await fetch(`${g.url}/_gateway/metrics`)).text();
  assert.match(metrics, /^gateway_rate_limit_exchange_request_weight_1m_ip_api_v3_remaining 0$/m);
  assert.match(metrics, /^gateway_rate_limit_exchange_refused_total 2$/m);
});

test('an upstream X-MBX-USED-WEIGHT-1M near the limit tightens the local budget', async () => {
  await up.reset();
  const g = await gateway({ weight: 100 });
  // Locally 5 used; the exchange says 97 (other users of the same IP): 3 left, so the next 5 are refused.
  assert.is((await get(g, depth(100), { 'x-test-used-weight': '97' })).status, 200);
  const next = await get(g, depth(100));
  assert.is(next.status, 429);
  assert.match(next.body.msg!, /97 used/);
  assert.is(await forwarded('/api/v3/depth'), 1);
  // A lower upstream count never loosens it.
  assert.is((await get(g, '/api/v3/ping', { 'x-test-used-weight': '0' })).status, 200); // weight 1: 98
  assert.is((await get(g, depth(100))).status, 429);
});

test('an upstream 418 with Retry-After: 2 → local 429s for 2 s, then forwarding resumes', async () => {
  await up.reset();
  const g = await gateway({ weight: 1000 });
  const ban = await fetch(g.url + depth(100), { headers: { 'x-test-status': '418', 'x-test-retry-after': '2' } });
  assert.is(ban.status, 418); // the exchange's own answer, relayed
  await ban.arrayBuffer();
  const started = Date.now();
  const during = [];
  while (Date.now() - started < 1500) {
    during.push(await get(g, '/api/v3/time'));
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(during.length >= 5);
  for (const a of during) {
    assert.is(a.status, 429);
    assert.is(a.body.code, -1003);
    assert.match(a.body.msg!, /refused the gateway's IP/);
    assert.ok(['1', '2'].includes(a.headers.get('retry-after')!), `Retry-After ${a.headers.get('retry-after')}`);
  }
  assert.is(await forwarded('/api/v3/time'), 0);
  await new Promise((r) => setTimeout(r, 2100 - (Date.now() - started)));
  assert.is((await get(g, '/api/v3/time')).status, 200);
  assert.is(await forwarded('/api/v3/time'), 1);
});

test('ORDERS are counted per account: a second API key has its own budget; test orders do not count', async () => {
  await up.reset();
  const g = await gateway({ weight: 1000, orders: 2 });
  const order = async (key: string) => {
    const q = signed(`symbol=BTCUSDT&side=BUY&type=MARKET&quantity=1&${ts()}`);
    const r = await fetch(`${g.url}/api/v3/order?${q}`, { method: 'POST', headers: { 'x-mbx-apikey': key } });
    return { status: r.status, body: await r.json() as { code?: number; msg?: string } };
  };
  assert.is((await order(API_KEY)).status, 200);
  assert.is((await order(API_KEY)).status, 200);
  const third = await order(API_KEY);
  assert.is(third.status, 429);
  assert.match(third.body.msg!, /ORDERS limit of 2 per 10s \(counted per account \(API key\)\)/);
  assert.is.not((await order('another-key-0123456789')).status, 429); // forwarded (the upstream refuses the unknown key)
  const test = await fetch(`${g.url}/api/v3/order/test?${signed(`symbol=BTCUSDT&side=BUY&type=MARKET&quantity=1&${ts()}`)}`, { method: 'POST', headers: { 'x-mbx-apikey': API_KEY } });
  assert.is(test.status, 200);
  assert.is(await forwarded('/api/v3/order?'), 3);
});

test('--rate-limit off forwards everything', async () => {
  await up.reset();
  const g = await gateway({ weight: 10 }, ['--rate-limit', 'off']);
  for (let i = 0; i < 5; i++) assert.is((await get(g, depth(100))).status, 200);
  assert.is(await forwarded('/api/v3/depth'), 5);
});

test.run();
