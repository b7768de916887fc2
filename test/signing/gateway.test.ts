// Signing mode end to end: an unsigned request from a token holder reaches the verifying upstream
// signed (HMAC, RSA, RSA with an encrypted key, Ed25519); refused tokens never reach it.
import { createHmac } from 'node:crypto';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import type { RunningGateway } from '../../src/server.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import {
  bearer, ED, ED_KEY, HMAC_KEY, HMAC_SECRET, PASSPHRASE, RSA, RSA_ENC, RSA_ENC_KEY, RSA_KEY, signingGateway, tokensFile, TOKENS, UPSTREAM_KEYS,
} from './support.js';

const test = suite('signing mode');
let upstream: Upstream;
const gws: Record<string, RunningGateway> = {};
const withTokens = ['--tokens-file', tokensFile];

const MODES = {
  HMAC: { apiKey: HMAC_KEY, env: { EXCHANGE_API_KEY: HMAC_KEY, EXCHANGE_API_SECRET: HMAC_SECRET } },
  RSA: { apiKey: RSA_KEY, env: { EXCHANGE_API_KEY: RSA_KEY, EXCHANGE_PRIVATE_KEY_FILE: RSA.privateFile } },
  'RSA with passphrase': { apiKey: RSA_ENC_KEY, env: { EXCHANGE_API_KEY: RSA_ENC_KEY, EXCHANGE_PRIVATE_KEY_FILE: RSA_ENC.privateFile, EXCHANGE_PRIVATE_KEY_PASSPHRASE: PASSPHRASE } },
  Ed25519: { apiKey: ED_KEY, env: { EXCHANGE_API_KEY: ED_KEY, EXCHANGE_PRIVATE_KEY_FILE: ED.privateFile, EXCHANGE_RECV_WINDOW: '5000' } },
} as const;

test.before(async () => {
  upstream = await startUpstream(UPSTREAM_KEYS);
  for (const [name, m] of Object.entries(MODES)) gws[name] = await signingGateway(upstream.url, m.env, withTokens);
});
test.before.each(async () => { await upstream.reset(); });
test.after(async () => {
  for (const g of Object.values(gws)) await g.close();
  await upstream.stop();
});

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

for (const [name, m] of Object.entries(MODES)) {
  test(`${name}: unsigned GET from a token holder arrives signed and verifies`, async () => {
    const res = await fetch(`${gws[name].url}/api/v3/account?omitZeroBalances=true`, { headers: bearer(TOKENS.trader) });
    assert.is(res.status, 200, await res.clone().text());
    const [rec] = await upstream.records();
    assert.is(rec.verified, true, rec.reason);
    assert.is(rec.headers['x-mbx-apikey'], m.apiKey);
    assert.is(rec.headers.authorization, undefined);
    const rw = 'EXCHANGE_RECV_WINDOW' in m.env ? '&recvWindow=5000' : '';
    assert.match(rec.url, new RegExp(`^/api/v3/account\\?omitZeroBalances=true&timestamp=\\d{13}${rw}&signature=[^&]+$`));
    const ts = Number(/timestamp=(\d+)/.exec(rec.url)![1]);
    assert.ok(Math.abs(ts - Date.now()) < 5000, 'timestamp is now');
  });

  test(`${name}: unsigned POST with a form body: signature over query + body verifies`, async () => {
    const body = 'symbol=BNBUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=1&price=350';
    const res = await fetch(`${gws[name].url}/api/v3/order`, { method: 'POST', body, headers: { ...bearer(TOKENS.trader), ...FORM } });
    assert.is(res.status, 200, await res.clone().text());
    const [rec] = await upstream.records();
    assert.is(rec.verified, true, rec.reason);
    assert.is(rec.body, body);
    assert.is(rec.headers.authorization, undefined);
  });
}

test('the raw query text is kept byte for byte, signature appended', async () => {
  const q = 'omitZeroBalances=true&x=%5b%22a%22%5D+b';
  const res = await fetch(`${gws.HMAC.url}/api/v3/account?${q}`, { headers: bearer(TOKENS.trader) });
  assert.is(res.status, 200);
  const [rec] = await upstream.records();
  assert.ok(rec.url.startsWith(`/api/v3/account?${q}&timestamp=`), rec.url);
  const query = rec.url.slice(rec.url.indexOf('?') + 1, rec.url.indexOf('&signature='));
  assert.is(rec.url.slice(rec.url.indexOf('&signature=') + 11), createHmac('sha256', HMAC_SECRET).update(query).digest('hex'));
  assert.is(rec.verified, true);
});

test('missing, malformed and unknown tokens → 401 -2014; nothing reaches the upstream', async () => {
  const url = `${gws.RSA.url}/api/v3/account`;
  for (const headers of [{}, { Authorization: `Basic ${TOKENS.trader}` }, bearer('gwt_not-a-token'), bearer(`${TOKENS.trader}x`)]) {
    const res = await fetch(url, { headers });
    assert.is(res.status, 401);
    assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
    const body = await res.json() as { code: number; msg: string };
    assert.is(body.code, -2014);
    assert.not.ok(JSON.stringify(body).includes(TOKENS.trader));
  }
  // Public endpoints too: in signing mode the gateway serves token holders only.
  assert.is((await fetch(`${gws.RSA.url}/api/v3/ping`)).status, 401);
  assert.equal(await upstream.records(), []);
});

test('a token not allowed for the endpoint → 403 -2015 naming the token, not reaching the upstream', async () => {
  const cases: [string, string, string][] = [
    [TOKENS.reader, 'GET', '/api/v3/account'], // reader: market module, GET only
    [TOKENS.margin, 'GET', '/api/v3/account'], // margin: /sapi/v1/margin/** only
    [TOKENS.trader, 'GET', '/sapi/v1/margin/account'],
  ];
  for (const [token, method, path] of cases) {
    const res = await fetch(`${gws.Ed25519.url}${path}`, { method, headers: bearer(token) });
    assert.is(res.status, 403, path);
    const body = await res.json() as { code: number; msg: string };
    assert.is(body.code, -2015);
    assert.match(body.msg, new RegExp(`is not allowed to call ${method} ${path.replace(/\//g, '\\/')}`));
    assert.not.ok(body.msg.includes(token));
  }
  const order = await fetch(`${gws.Ed25519.url}/api/v3/order`, { method: 'POST', body: 'symbol=BNBUSDT&side=BUY&type=MARKET&quantity=1', headers: { ...bearer(TOKENS.reader), ...FORM } });
  assert.is(order.status, 403);
  assert.equal(await upstream.records(), []);
  const ok = await fetch(`${gws.Ed25519.url}/sapi/v1/margin/account`, { headers: bearer(TOKENS.margin) });
  assert.is(ok.status, 200);
  assert.is((await upstream.records())[0].verified, true);
});

test('validation still applies before signing (gateway-supplied parameters not asked for)', async () => {
  const res = await fetch(`${gws.HMAC.url}/api/v3/order`, { method: 'POST', body: 'side=BUY&type=MARKET&quantity=1', headers: { ...bearer(TOKENS.trader), ...FORM } });
  assert.is(res.status, 400);
  const body = await res.json() as { code: number; msg: string };
  assert.is(body.code, -1102);
  assert.match(body.msg, /'symbol'/);
  assert.equal(await upstream.records(), []);
});

test('API_KEY endpoint: key header set, no signature; NONE endpoint: neither', async () => {
  // (Listen keys, the API_KEY example this used, are answered by the gateway itself since their retirement: docs/user-data.md.)
  const res = await fetch(`${gws.HMAC.url}/sapi/v1/margin/allAssets`, { headers: bearer(TOKENS.margin) });
  assert.is(res.status, 200, await res.clone().text());
  const ping = await fetch(`${gws.HMAC.url}/api/v3/ping`, { headers: bearer(TOKENS.trader) });
  assert.is(ping.status, 200);
  const [key, none] = await upstream.records();
  assert.is(key.url, '/sapi/v1/margin/allAssets');
  assert.is(key.headers['x-mbx-apikey'], HMAC_KEY);
  assert.is(key.verified, null);
  assert.is(none.url, '/api/v3/ping');
  assert.is(none.headers['x-mbx-apikey'], undefined);
  assert.is(none.headers.authorization, undefined);
});

test('a request the client signed itself passes unchanged (its own key header kept)', async () => {
  const query = `omitZeroBalances=true&timestamp=${Date.now()}`;
  const sig = createHmac('sha256', HMAC_SECRET).update(query).digest('hex');
  const res = await fetch(`${gws.Ed25519.url}/api/v3/account?${query}&signature=${sig}`, { headers: { ...bearer(TOKENS.trader), 'X-MBX-APIKEY': HMAC_KEY } });
  assert.is(res.status, 200, await res.clone().text());
  const [rec] = await upstream.records();
  assert.is(rec.url, `/api/v3/account?${query}&signature=${sig}`);
  assert.is(rec.headers['x-mbx-apikey'], HMAC_KEY);
  assert.is(rec.verified, true);
});

test('an unsigned request with the client\'s own key header is signed with the gateway\'s key', async () => {
  const res = await fetch(`${gws.RSA.url}/api/v3/openOrders?symbol=BNBUSDT`, { headers: { ...bearer(TOKENS.trader), 'X-MBX-APIKEY': 'someone-else' } });
  assert.is(res.status, 200, await res.clone().text());
  const [rec] = await upstream.records();
  assert.is(rec.headers['x-mbx-apikey'], RSA_KEY);
  assert.is(rec.verified, true);
});

test('admin answers hold no secret', async () => {
  for (const path of ['/_gateway/catalogue', '/_gateway/openapi.json', '/_gateway/health', '/_gateway/metrics']) {
    const text = await (await fetch(`${gws.HMAC.url}${path}`)).text();
    for (const s of [HMAC_SECRET, HMAC_KEY, TOKENS.trader]) assert.not.ok(text.includes(s), `${path} leaks`);
  }
});

test('signing mode off loopback: refused without tokens, served with them', async () => {
  try {
    await signingGateway(upstream.url, MODES.HMAC.env, ['--host', '0.0.0.0']);
    assert.unreachable('should refuse');
  } catch (e) {
    assert.is((e as Error).name, 'UsageError');
    assert.match((e as Error).message, /signing mode is on and --host 0\.0\.0\.0 is not loopback, but no client tokens are configured: set GATEWAY_TOKENS_FILE/);
    assert.not.ok((e as Error).message.includes(HMAC_SECRET));
  }
  const open = await signingGateway(upstream.url, MODES.HMAC.env, ['--host', '0.0.0.0', ...withTokens]);
  try {
    const port = new URL(open.url).port;
    const res = await fetch(`http://127.0.0.1:${port}/api/v3/account`, { headers: bearer(TOKENS.trader) });
    assert.is(res.status, 200);
  } finally { await open.close(); }
});

test('signing on loopback without tokens: served without client authentication', async () => {
  const local = await signingGateway(upstream.url, MODES.HMAC.env);
  try {
    const res = await fetch(`${local.url}/api/v3/account`, { headers: { Authorization: 'Bearer whatever' } });
    assert.is(res.status, 200);
    const [rec] = await upstream.records();
    assert.is(rec.verified, true);
    assert.is(rec.headers.authorization, undefined);
  } finally { await local.close(); }
});

test('tokens file naming an unknown catalogue module: start-up error listing the modules', async () => {
  const { writeFileSync } = await import('node:fs');
  const { hashLine } = await import('../../src/gateway/client-auth/tokens.js');
  const file = tokensFile.replace('tokens.yaml', 'tokens-bad-module.yaml');
  writeFileSync(file, `tokens:\n  - name: x\n    hash: ${hashLine('x')}\n    allow: [{ module: trading }]\n`);
  try {
    await signingGateway(upstream.url, MODES.HMAC.env, ['--tokens-file', file]);
    assert.unreachable('should refuse');
  } catch (e) {
    assert.match((e as Error).message, /unknown catalogue modules: "trading" \(token "x"\); valid: .*trade/);
  }
});

test.run();
