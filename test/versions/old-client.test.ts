// Acceptance of version changes: a real client released before the margin endpoints went away
// (@binance/connector 3.4.0, which still calls /sapi/v1/margin/loan, /repay, /transfer,
// /isolated/transfer, /asset, /pair and /isolated/pair) pinned at 3.5.1 through /@3.5.1/, unchanged
// but for its base URL, against an upstream that implements only today's surface (newest-upstream.ts).
// With the key (signing mode, HMAC) every call is verified, migrated, signed again and accepted;
// without it, the calls whose signed bytes would change get 410 naming the replacement and the
// upstream receives nothing.
import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { readConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';
import { ROOT, startProcess, type Proc } from '../support/processes.js';
import type { NewestRecord } from './newest-upstream.js';

const require = createRequire(import.meta.url);
type Answer = { data: unknown; headers: Record<string, string> };
type Client = Record<string, (...args: unknown[]) => Promise<Answer>>;
const { Spot } = require('binance-connector-3-4') as { Spot: new (key: string, secret: string, opts: Record<string, unknown>) => Client };

const API_KEY = 'versions-api-key-0123456789';
const SECRET = 'versions-secret-Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp';
const test = suite('version changes: an old client through /@3.5.1/ against the newest upstream');

let upstream: Proc & { url: string };
let keyed: RunningGateway;
let keyless: RunningGateway;
const records = async (): Promise<NewestRecord[]> => (await fetch(`${upstream.url}/__records`)).json() as Promise<NewestRecord[]>;
const gateway = (signing: boolean) => startGateway(readConfig(['--port', '0', '--upstream', `exchange=${upstream.url}`, '--release', '3.5.1,3.12.0'],
  signing ? { EXCHANGE_API_KEY: API_KEY, EXCHANGE_API_SECRET: SECRET } : {}), { logger: createLogger('silent') });
const client = (g: RunningGateway) => new Spot(API_KEY, SECRET, { baseURL: `${g.url}/@3.5.1` });

test.before(async () => {
  const p = await startProcess(`${ROOT}dist/test/versions/newest-upstream.js`, [API_KEY, SECRET], /port (\d+)/);
  upstream = { ...p, url: `http://127.0.0.1:${p.match[1]}` };
  keyed = await gateway(true);
  keyless = await gateway(false);
});
test.after(async () => {
  await keyed?.close();
  await keyless?.close();
  await upstream?.stop();
});

/** The calls of the old client, what it is sent to today, and the answer it expects. */
const CALLS: { name: string; call: (c: Client) => Promise<Answer>; upstream: RegExp; expect: (data: unknown) => void; signedBytes: boolean }[] = [
  { name: 'marginBorrow (POST /sapi/v1/margin/loan)', call: (c) => c.marginBorrow('BTC', '1.5'), signedBytes: true,
    upstream: /^\/sapi\/v1\/margin\/borrow-repay\?asset=BTC&amount=1\.5&timestamp=\d+&type=BORROW&isIsolated=FALSE&signature=[0-9a-f]{64}$/,
    expect: (d) => assert.equal(d, { tranId: 100000001 }) },
  { name: 'marginRepay (POST /sapi/v1/margin/repay, isolated)', call: (c) => c.marginRepay('BTC', '1.5', { isIsolated: 'TRUE', symbol: 'BTCUSDT' }), signedBytes: true,
    upstream: /^\/sapi\/v1\/margin\/borrow-repay\?isIsolated=TRUE&symbol=BTCUSDT&asset=BTC&amount=1\.5&timestamp=\d+&type=REPAY&signature=/,
    expect: (d) => assert.equal(d, { tranId: 100000001 }) },
  { name: 'marginTransfer (POST /sapi/v1/margin/transfer, type 1)', call: (c) => c.marginTransfer('USDT', '10', 1), signedBytes: true,
    upstream: /^\/sapi\/v1\/asset\/transfer\?asset=USDT&amount=10&type=MAIN_MARGIN&timestamp=\d+&signature=/,
    expect: (d) => assert.equal(d, { tranId: 13526853623 }) },
  { name: 'isolatedMarginTransfer (POST /sapi/v1/margin/isolated/transfer)', call: (c) => c.isolatedMarginTransfer('USDT', 'BTCUSDT', 'SPOT', 'ISOLATED_MARGIN', '10'), signedBytes: true,
    upstream: /^\/sapi\/v1\/asset\/transfer\?asset=USDT&amount=10&timestamp=\d+&type=MAIN_ISOLATED_MARGIN&toSymbol=BTCUSDT&signature=/,
    expect: (d) => assert.equal(d, { tranId: 13526853623 }) },
  { name: 'marginAsset (GET /sapi/v1/margin/asset)', call: (c) => c.marginAsset('BTC'), signedBytes: false,
    upstream: /^\/sapi\/v1\/margin\/allAssets\?asset=BTC$/,
    expect: (d) => assert.is((d as { assetName: string }).assetName, 'BTC', 'one object, as the old endpoint answered, not a list') },
  { name: 'marginPair (GET /sapi/v1/margin/pair)', call: (c) => c.marginPair('BNBBTC'), signedBytes: false,
    upstream: /^\/sapi\/v1\/margin\/allPairs\?symbol=BNBBTC$/,
    expect: (d) => assert.is((d as { symbol: string }).symbol, 'BNBBTC') },
  { name: 'isolatedMarginSymbol (GET /sapi/v1/margin/isolated/pair, signed, path moved only)', call: (c) => c.isolatedMarginSymbol('BTCUSDT'), signedBytes: false,
    upstream: /^\/sapi\/v1\/margin\/isolated\/allPairs\?symbol=BTCUSDT&timestamp=\d+&signature=/,
    expect: (d) => assert.is((d as { symbol: string }).symbol, 'BTCUSDT') },
];

for (const c of CALLS) {
  test(`with the key: ${c.name} reaches today's operation and answers in the old shape`, async () => {
    const before = (await records()).length;
    const res = await c.call(client(keyed));
    c.expect(res.data);
    assert.match(res.headers['x-gateway-migrated'], /^3\.6\.0 [a-z-]+$/);
    const rec = (await records()).slice(before);
    assert.is(rec.length, 1, JSON.stringify(rec));
    assert.is(rec[0].status, 200, rec[0].reason);
    assert.match(rec[0].url, c.upstream, rec[0].url);
  });
}

for (const c of CALLS) {
  test(`without a key: ${c.name} ${c.signedBytes ? 'is refused 410 naming the replacement, never forwarded' : 'still reaches today\'s operation'}`, async () => {
    const before = (await records()).length;
    if (!c.signedBytes) {
      c.expect((await c.call(client(keyless))).data);
      assert.is((await records()).length, before + 1);
      return;
    }
    const e = await c.call(client(keyless)).then(() => null, (err: { response?: { status: number; data: { code: number; msg: string } } }) => err.response);
    assert.ok(e, 'refused');
    assert.is(e!.status, 410);
    assert.is(e!.data.code, -1020);
    assert.match(e!.data.msg, /use (POST \/sapi\/v1\/margin\/borrow-repay|POST \/sapi\/v1\/asset\/transfer)$/);
    assert.match(e!.data.msg, /3\.6\.0/);
    assert.is((await records()).length, before, 'the upstream received nothing');
  });
}

test('the re-signed request keeps the client\'s timestamp and recvWindow', async () => {
  const query = `asset=BTC&amount=2&recvWindow=5000&timestamp=${Date.now()}`;
  const sig = createHmac('sha256', SECRET).update(query).digest('hex');
  const before = (await records()).length;
  const res = await fetch(`${keyed.url}/@3.5.1/sapi/v1/margin/loan?${query}&signature=${sig}`, { method: 'POST', headers: { 'X-MBX-APIKEY': API_KEY } });
  assert.is(res.status, 200, await res.clone().text());
  const [rec] = (await records()).slice(before);
  assert.ok(rec.url.startsWith(`/sapi/v1/margin/borrow-repay?${query}&type=BORROW&isIsolated=FALSE&signature=`), rec.url);
});

test('a bad client signature is refused 401 -1022 and never forwarded', async () => {
  const query = `asset=BTC&amount=2&timestamp=${Date.now()}`;
  const sig = createHmac('sha256', 'some-other-secret').update(query).digest('hex');
  const before = (await records()).length;
  const res = await fetch(`${keyed.url}/@3.5.1/sapi/v1/margin/loan?${query}&signature=${sig}`, { method: 'POST', headers: { 'X-MBX-APIKEY': API_KEY } });
  assert.is(res.status, 401);
  const body = await res.json() as { code: number; msg: string };
  assert.is(body.code, -1022);
  assert.not.match(body.msg, new RegExp(sig));
  assert.is((await records()).length, before);
});

test('the same client at 3.12.0 is not migrated: no header, and its removed call is 410 from the catalogue', async () => {
  const c = new Spot(API_KEY, SECRET, { baseURL: `${keyed.url}/@3.12.0` });
  const e = await c.marginBorrow('BTC', '1').then(() => null, (err: { response?: { status: number; headers: Record<string, string> } }) => err.response);
  assert.is(e!.status, 410);
  assert.is(e!.headers['x-gateway-migrated'], undefined);
  const res = await c.isolatedMarginAllSymbols();
  assert.is(res.headers['x-gateway-migrated'], undefined);
  assert.ok(Array.isArray(res.data));
});

test('GET /_gateway/plan explains what the running gateway does with an operation at a release', async () => {
  const ask = async (g: RunningGateway, q: string) => { const r = await fetch(`${g.url}/_gateway/plan?${q}`); return { status: r.status, body: await r.json() as Record<string, any> }; };
  const op = encodeURIComponent('POST /sapi/v1/margin/loan');
  const withKey = await ask(keyed, `release=3.5.1&operation=${op}`);
  assert.is(withKey.status, 200);
  assert.match(withKey.body.decision, /^migrated to POST \/sapi\/v1\/margin\/borrow-repay \(3\.6\.0 margin-loan-to-borrow-repay\)/);
  assert.is(withKey.body.plan.target, 'POST /sapi/v1/margin/borrow-repay');
  const without = await ask(keyless, `release=3.5.1&operation=${op}`);
  assert.is(without.body.keyHeld, false);
  assert.equal(without.body.plan.security, { from: 'SIGNED', to: 'SIGNED' });
  const asset = await ask(keyless, `release=3.5.1&operation=${encodeURIComponent('GET /sapi/v1/margin/asset')}`);
  assert.match(asset.body.decision, /^migrated to GET \/sapi\/v1\/margin\/allAssets/);
  const same = await ask(keyless, `release=3.12.0&operation=${encodeURIComponent('GET /api/v3/ping')}`);
  assert.is(same.body.plan, null);
  assert.is((await ask(keyless, 'release=9.9.9&operation=x')).status, 400);
  assert.is((await ask(keyless, 'release=3.5.1&operation=ping')).status, 400);
  assert.is((await ask(keyless, `release=3.12.0&operation=${op}`)).status, 404);
});

test.run();
