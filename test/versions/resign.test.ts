// Signed requests across a version change, for each scheme the exchange takes: the gateway holds the
// key (signing mode), verifies the client's own signature over the request as received, migrates it
// and signs it again with the same timestamp and recvWindow; the verifying upstream (the shared test
// stand-in, test/support/exchange-upstream.ts) checks the new signature with the public key.
import { createHmac, sign } from 'node:crypto';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import type { RunningGateway } from '../../src/server.js';
import { createLogger } from '../../src/log.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { ED, ED_KEY, HMAC_KEY, HMAC_SECRET, RSA, RSA_KEY, signingGateway, UPSTREAM_KEYS } from '../signing/support.js';

const test = suite('version changes: signed requests are verified, migrated and signed again');
let upstream: Upstream;
const gws: Record<string, RunningGateway> = {};
const lines: string[] = [];

const b64url = (b: Buffer) => encodeURIComponent(b.toString('base64'));
const MODES = {
  HMAC: { apiKey: HMAC_KEY, env: { EXCHANGE_API_KEY: HMAC_KEY, EXCHANGE_API_SECRET: HMAC_SECRET }, sign: (p: string) => createHmac('sha256', HMAC_SECRET).update(p).digest('hex') },
  RSA: { apiKey: RSA_KEY, env: { EXCHANGE_API_KEY: RSA_KEY, EXCHANGE_PRIVATE_KEY_FILE: RSA.privateFile }, sign: (p: string) => b64url(sign('sha256', Buffer.from(p), RSA.privatePem)) },
  Ed25519: { apiKey: ED_KEY, env: { EXCHANGE_API_KEY: ED_KEY, EXCHANGE_PRIVATE_KEY_FILE: ED.privateFile }, sign: (p: string) => b64url(sign(null, Buffer.from(p), ED.privatePem)) },
} as const;

test.before(async () => {
  upstream = await startUpstream(UPSTREAM_KEYS);
  for (const [name, m] of Object.entries(MODES)) {
    gws[name] = await signingGateway(upstream.url, m.env, ['--release', '3.5.1'], name === 'HMAC' ? createLogger('info', (l) => lines.push(l)) : undefined);
  }
});
test.before.each(async () => { await upstream.reset(); });
test.after(async () => {
  for (const g of Object.values(gws)) await g.close();
  await upstream.stop();
});

for (const [name, m] of Object.entries(MODES)) {
  test(`${name}: a client-signed margin transfer at 3.5.1 arrives as a universal transfer, signed again, same timestamp`, async () => {
    const query = `asset=USDT&amount=10&type=2&recvWindow=4000&timestamp=${Date.now()}`;
    const res = await fetch(`${gws[name].url}/@3.5.1/sapi/v1/margin/transfer?${query}&signature=${m.sign(query)}`, { method: 'POST', headers: { 'X-MBX-APIKEY': m.apiKey } });
    assert.is(res.status, 200, await res.clone().text());
    assert.is(res.headers.get('x-gateway-migrated'), '3.6.0 margin-transfer-to-universal');
    const [rec] = await upstream.records();
    assert.is(rec.verified, true, rec.reason);
    assert.ok(rec.url.startsWith(`/sapi/v1/asset/transfer?asset=USDT&amount=10&type=MARGIN_MAIN&recvWindow=4000&timestamp=${/timestamp=(\d+)/.exec(query)![1]}&signature=`), rec.url);
  });

  test(`${name}: a form body is migrated and signed too`, async () => {
    const body = `asset=USDT&amount=10&type=1&timestamp=${Date.now()}`;
    const res = await fetch(`${gws[name].url}/@3.5.1/sapi/v1/margin/transfer`, {
      method: 'POST', body: `${body}&signature=${m.sign(body)}`, headers: { 'X-MBX-APIKEY': m.apiKey, 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    assert.is(res.status, 200, await res.clone().text());
    const [rec] = await upstream.records();
    assert.is(rec.verified, true, rec.reason);
    assert.ok(rec.body.startsWith('asset=USDT&amount=10&type=MAIN_MARGIN&timestamp='), rec.body);
  });

  test(`${name}: a signature that does not verify is refused 401 -1022 before anything reaches the upstream`, async () => {
    const query = `asset=USDT&amount=10&type=2&timestamp=${Date.now()}`;
    const res = await fetch(`${gws[name].url}/@3.5.1/sapi/v1/margin/transfer?${query}&signature=${m.sign(`${query}0`)}`, { method: 'POST', headers: { 'X-MBX-APIKEY': m.apiKey } });
    assert.is(res.status, 401);
    assert.is(((await res.json()) as { code: number }).code, -1022);
    assert.equal(await upstream.records(), []);
  });
}

test('the access line names the changes applied', async () => {
  const query = `asset=USDT&amount=10&type=1&timestamp=${Date.now()}`;
  const res = await fetch(`${gws.HMAC.url}/@3.5.1/sapi/v1/margin/transfer?${query}&signature=${MODES.HMAC.sign(query)}`, { method: 'POST', headers: { 'X-MBX-APIKEY': HMAC_KEY } });
  assert.is(res.status, 200);
  await res.arrayBuffer();
  await new Promise((r) => setTimeout(r, 50)); // the access line is written as the answer ends
  const access = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'access' && l.route === '/sapi/v1/margin/transfer');
  assert.ok(access.length > 0, lines.slice(-3).join('\n'));
  assert.is(access.at(-1)!.migrated, '3.6.0 margin-transfer-to-universal');
  assert.not.match(JSON.stringify(access), /signature=|MAIN_MARGIN/, 'the route template and change ids only, never parameters');
});

test('a HEAD of a moved GET stays a HEAD', async () => {
  const res = await fetch(`${gws.HMAC.url}/@3.5.1/sapi/v1/margin/asset?asset=BTC`, { method: 'HEAD', headers: { 'X-MBX-APIKEY': HMAC_KEY } });
  assert.is(res.status, 200);
  const [rec] = await upstream.records();
  assert.is(rec.method, 'HEAD');
  assert.is(rec.url, '/sapi/v1/margin/allAssets?asset=BTC');
});

test.run();
