// Issue 22 finding 7: in signing mode the gateway sends its own API key, so the account limits
// (ORDERS per 10 s) must count that key — not the X-MBX-APIKEY the client sent, which the gateway
// replaces. A made-up key per order used to get every order forwarded under the one account.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import type { RunningGateway } from '../../src/server.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { HMAC_KEY, HMAC_SECRET, signingGateway, UPSTREAM_KEYS } from '../signing/support.js';
import { catalogueWithLimits } from './small-limits.js';

const test = suite('rate limits in signing mode: the key the gateway sends');
let up: Upstream;
let gw: RunningGateway;
const ORDERS = 5;

test.before(async () => {
  up = await startUpstream(UPSTREAM_KEYS);
  gw = await signingGateway(up.url, { EXCHANGE_API_KEY: HMAC_KEY, EXCHANGE_API_SECRET: HMAC_SECRET }, ['--catalogue', catalogueWithLimits({ weight: 100_000, orders: ORDERS })]);
});
test.after(async () => {
  await gw.close();
  await up.stop();
});

test('a made-up X-MBX-APIKEY per order: only the account\'s ORDERS budget is forwarded', async () => {
  const answers = [];
  for (let i = 0; i < 3 * ORDERS; i++) {
    const r = await fetch(`${gw.url}/api/v3/order?symbol=BTCUSDT&side=BUY&type=MARKET&quantity=1`, { method: 'POST', headers: { 'x-mbx-apikey': `made-up-key-${i}-${Math.random()}` } });
    answers.push({ status: r.status, body: await r.json() as { code?: number; msg?: string } });
  }
  assert.equal(answers.map((a) => a.status), [...Array(ORDERS).fill(200), ...Array(2 * ORDERS).fill(429)]);
  assert.is(answers[ORDERS].body.code, -1003);
  assert.match(answers[ORDERS].body.msg!, new RegExp(`ORDERS limit of ${ORDERS} per 10s \\(counted per account \\(API key\\)\\)`));
  const orders = (await up.records()).filter((r) => r.url.startsWith('/api/v3/order?'));
  assert.is(orders.length, ORDERS, 'forwarded: the budget of the one account, whatever keys the clients made up');
  for (const o of orders) assert.is(o.headers['x-mbx-apikey'], HMAC_KEY, 'sent with the gateway\'s key');
});

test.run();
