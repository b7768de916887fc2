// Pass-through mode (no signing configured): the exchange's own client, @binance/connector, signs
// with RSA, an encrypted RSA key, Ed25519 and HMAC; its requests go through the gateway unchanged
// and verify at the upstream. (The connector spells the algorithm 'Ed25519': helpers/privateKeyAlgo.js.)
import { createRequire } from 'node:module';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import type { RunningGateway } from '../../src/server.js';
import { gatewayAt } from '../support/gateway.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { ED, ED_KEY, HMAC_KEY, HMAC_SECRET, PASSPHRASE, RSA, RSA_ENC, RSA_ENC_KEY, RSA_KEY, UPSTREAM_KEYS } from './support.js';

interface SpotClient {
  account(o?: Record<string, unknown>): Promise<{ status: number; data: { verified: boolean | null } }>;
  newOrder(symbol: string, side: string, type: string, o?: Record<string, unknown>): Promise<{ status: number; data: { verified: boolean | null } }>;
  openOrders(o?: Record<string, unknown>): Promise<{ status: number; data: { verified: boolean | null } }>;
}
type SpotCtor = new (apiKey: string, apiSecret: string, options: Record<string, unknown>) => SpotClient;
const { Spot } = createRequire(import.meta.url)('@binance/connector') as { Spot: SpotCtor };

const test = suite('@binance/connector through the gateway (pass-through)');
let upstream: Upstream;
let gw: RunningGateway;
const quiet = { log() {}, info() {}, warn() {}, error() {}, debug() {} };

test.before(async () => {
  upstream = await startUpstream(UPSTREAM_KEYS);
  gw = await gatewayAt('3.12.0', upstream.url);
});
test.before.each(async () => { await upstream.reset(); });
test.after(async () => {
  await gw.close();
  await upstream.stop();
});

const clients: Record<string, () => SpotClient> = {
  RSA: () => new Spot(RSA_KEY, '', { baseURL: gw.url, privateKey: RSA.privatePem, privateKeyAlgo: 'RSA', logger: quiet }),
  'RSA, encrypted key': () => new Spot(RSA_ENC_KEY, '', { baseURL: gw.url, privateKey: RSA_ENC.privatePem, privateKeyPassphrase: PASSPHRASE, privateKeyAlgo: 'RSA', logger: quiet }),
  Ed25519: () => new Spot(ED_KEY, '', { baseURL: gw.url, privateKey: ED.privatePem, privateKeyAlgo: 'Ed25519', logger: quiet }),
  HMAC: () => new Spot(HMAC_KEY, HMAC_SECRET, { baseURL: gw.url, logger: quiet }),
};

for (const [name, make] of Object.entries(clients)) {
  test(`${name}: account(), newOrder(), openOrders() verify at the upstream`, async () => {
    const client = make();
    const account = await client.account({ omitZeroBalances: true });
    assert.is(account.status, 200);
    assert.is(account.data.verified, true);
    const order = await client.newOrder('BNBUSDT', 'BUY', 'LIMIT', { price: '350', quantity: 1, timeInForce: 'GTC' });
    assert.is(order.status, 200);
    assert.is(order.data.verified, true);
    const open = await client.openOrders({ symbol: 'BNBUSDT' });
    assert.is(open.data.verified, true);
    const recs = await upstream.records();
    assert.equal(recs.map((r) => `${r.method} ${r.url.split('?')[0]} ${r.verified}`), [
      'GET /api/v3/account true', 'POST /api/v3/order true', 'GET /api/v3/openOrders true',
    ]);
    assert.match(recs[1].url, /^\/api\/v3\/order\?price=350&quantity=1&timeInForce=GTC&symbol=BNBUSDT&side=BUY&type=LIMIT&timestamp=\d+&signature=/);
  });
}

test('a gateway validation error reaches the client in the envelope it parses', async () => {
  const client = clients.Ed25519();
  try {
    await client.newOrder('BNBUSDT', 'BUY', 'LIMIT', { price: '350', quantity: 1, timeInForce: 'NEVER' });
    assert.unreachable('should be refused');
  } catch (e) {
    const err = e as { response?: { status: number; data: { code: number; msg: string } } };
    assert.is(err.response?.status, 400);
    assert.is(err.response?.data.code, -1130);
    assert.match(err.response!.data.msg, /timeInForce/);
  }
  assert.equal(await upstream.records(), []);
});

test.run();
