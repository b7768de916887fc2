// Token scope and parameter spelling in signing mode: a token's rights are checked against the
// operation the gateway sends after a version change, not only the one the client names; a token
// query parameter never reaches the upstream's URL on REST; a second signature, however spelt, is
// never forwarded beside the gateway's own.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import type { RunningGateway } from '../../src/server.js';
import { hashLine } from '../../src/gateway/client-auth/tokens.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { runTool } from '../support/tools.js';
import { bearer, dir, HMAC_KEY, HMAC_SECRET, signingGateway, UPSTREAM_KEYS } from './support.js';

const test = suite('token scope through version changes, token and signature spellings');
const TOKENS = {
  getOnly: 'gwt_scope-get-only-0123456789abcdef0123456789abcdef01',
  margin: 'gwt_scope-margin-only-0123456789abcdef0123456789abcdef',
  both: 'gwt_scope-margin-and-transfer-0123456789abcdef012345678',
};
const tokensFile = join(dir, 'scope-tokens.yaml');
writeFileSync(tokensFile, `tokens:
  - name: get-only
    hash: ${hashLine(TOKENS.getOnly)}
    methods: [GET]
    allow:
      - '* /sapi/v1/margin/**'
      - '* /sapi/v1/asset/**'
  - name: margin
    hash: ${hashLine(TOKENS.margin)}
    allow:
      - '* /sapi/v1/margin/**'
  - name: both
    hash: ${hashLine(TOKENS.both)}
    allow:
      - '* /sapi/v1/margin/**'
      - POST /sapi/v1/asset/transfer
      - POST /sapi/v1/giftcard/createCode
      - GET /api/v3/*
`);

let upstream: Upstream;
let gw: RunningGateway;
test.before(async () => {
  upstream = await startUpstream(UPSTREAM_KEYS);
  gw = await signingGateway(upstream.url, { EXCHANGE_API_KEY: HMAC_KEY, EXCHANGE_API_SECRET: HMAC_SECRET }, ['--tokens-file', tokensFile, '--release', '3.5.1,3.12.0']);
});
test.before.each(async () => { await upstream.reset(); });
test.after(async () => {
  await gw?.close();
  await upstream?.stop();
});

async function call(method: string, path: string, token: string): Promise<{ status: number; body: { code?: number; msg?: string } }> {
  const res = await fetch(`${gw.url}${path}`, { method, headers: bearer(token) });
  const text = await res.text();
  let body = {};
  try { body = JSON.parse(text); } catch { body = { msg: text }; }
  return { status: res.status, body };
}

test('a GET-only token does not make the gateway sign POST /sapi/v1/asset/dust-btc through a version change', async () => {
  const r = await call('GET', '/@3.5.1/sapi/v1/margin/dust', TOKENS.getOnly);
  assert.is(r.status, 403, JSON.stringify(r.body));
  assert.is(r.body.code, -2015);
  assert.match(String(r.body.msg), /not allowed to call POST \/sapi\/v1\/asset\/dust-btc, which GET \/sapi\/v1\/margin\/dust at 3\.5\.1 is sent as/);
  assert.equal(await upstream.records(), [], 'nothing forwarded');
});

test('a margin-only token does not reach POST /sapi/v1/asset/transfer through a version change (as it does not directly)', async () => {
  const direct = await call('POST', '/sapi/v1/asset/transfer?type=MAIN_MARGIN&asset=USDT&amount=10', TOKENS.margin);
  assert.is(direct.status, 403);
  const r = await call('POST', '/@3.5.1/sapi/v1/margin/transfer?asset=USDT&amount=10&type=1', TOKENS.margin);
  assert.is(r.status, 403, JSON.stringify(r.body));
  assert.match(String(r.body.msg), /POST \/sapi\/v1\/asset\/transfer/);
  assert.equal(await upstream.records(), [], 'nothing forwarded');
});

test('a token allowed both operations is served through the version change', async () => {
  const r = await call('POST', '/@3.5.1/sapi/v1/margin/transfer?asset=USDT&amount=10&type=1', TOKENS.both);
  assert.is(r.status, 200, JSON.stringify(r.body));
  const [rec] = await upstream.records();
  assert.match(rec.url, /^\/sapi\/v1\/asset\/transfer\?asset=USDT&amount=10&type=MAIN_MARGIN&timestamp=\d+&signature=/);
  assert.is(rec.verified, true);
});

test('the plan says which operation a token must allow: `npm run catalogue -- plan` and GET /_gateway/plan', async () => {
  const cli = runTool('catalogue', ['plan', '3.5.1', 'GET /sapi/v1/margin/dust']);
  assert.is(cli.status, 0, cli.stderr);
  const plan = JSON.parse(cli.stdout) as { tokenRights: string };
  assert.match(plan.tokenRights, /^both GET \/sapi\/v1\/margin\/dust \(the operation the client names\) and POST \/sapi\/v1\/asset\/dust-btc \(the operation the gateway sends\)/);
  const res = await fetch(`${gw.url}/_gateway/plan?release=3.5.1&operation=${encodeURIComponent('POST /sapi/v1/margin/transfer')}`);
  const body = await res.json() as { tokenRights: string };
  assert.match(body.tokenRights, /POST \/sapi\/v1\/asset\/transfer \(the operation the gateway sends\)/);
});

test('a token query parameter on REST, however spelt, is refused 400 naming it and never forwarded', async () => {
  for (const name of ['token', 'Token', 'TOKEN', '%74oken', '%54oken']) {
    const r = await call('GET', `/api/v3/ping?${name}=${TOKENS.both}`, TOKENS.both);
    assert.is(r.status, 400, `${name}: ${JSON.stringify(r.body)}`);
    assert.ok(String(r.body.msg).includes(`'${name}'`), `${name}: ${r.body.msg}`);
    assert.not.ok(String(r.body.msg).includes(TOKENS.both), 'the token is not echoed');
  }
  assert.equal(await upstream.records(), [], 'nothing forwarded');
});

test("an endpoint's own token parameter (the gift-card asset) is forwarded; a client token in it is refused", async () => {
  const ok = await call('POST', '/sapi/v1/giftcard/createCode?token=USDT&amount=10', TOKENS.both);
  assert.is(ok.status, 200, JSON.stringify(ok.body));
  const refused = await call('POST', `/sapi/v1/giftcard/createCode?token=${TOKENS.both}&amount=10`, TOKENS.both);
  assert.is(refused.status, 400, JSON.stringify(refused.body));
  const recs = await upstream.records();
  assert.is(recs.length, 1);
  assert.match(recs[0].url, /^\/sapi\/v1\/giftcard\/createCode\?token=USDT&amount=10&timestamp=/);
});

test("a second signature, however spelt, beside the gateway's own is refused 400 naming it", async () => {
  for (const name of ['%73ignature', 'Signature', 'SIGNATURE', '%53IGNATURE']) {
    const r = await call('GET', `/api/v3/account?${name}=abc`, TOKENS.both);
    assert.is(r.status, 400, `${name}: ${JSON.stringify(r.body)}`);
    assert.is(r.body.code, -1101);
    assert.ok(String(r.body.msg).includes(`'${name}'`), `${name}: ${r.body.msg}`);
  }
  // Through a version change too (the migrated request is signed again by the gateway).
  const m = await call('POST', '/@3.5.1/sapi/v1/margin/transfer?asset=USDT&amount=10&type=1&%73ignature=abc', TOKENS.both);
  assert.is(m.status, 400, JSON.stringify(m.body));
  assert.equal(await upstream.records(), [], 'nothing forwarded');
});

test.run();
