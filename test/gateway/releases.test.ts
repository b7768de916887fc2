// Several releases in one process: each request is answered exactly as a gateway pinned at its
// release alone would answer it, whether the release is chosen by header or by /@<id>/ prefix.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { readConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';
import { API_KEY, SECRET, gatewayAt, signed, ts } from '../support/gateway.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { connect, isRefused, startWsUpstream, wsUrl, type WsUpstream } from '../websocket/ws-upstream.js';

const test = suite('several releases');
let upstream: Upstream;
let ws: WsUpstream;
let both: RunningGateway;
let old: RunningGateway;
let newest: RunningGateway;

test.before(async () => {
  upstream = await startUpstream({ [API_KEY]: { hmac: SECRET } });
  ws = await startWsUpstream();
  const extra = ['--upstream', `exchange.streams=${ws.url}`, '--upstream', `exchange.wsApi=${ws.url}/ws-api/v3`];
  both = await startGateway(readConfig(['--port', '0', '--release', '3.5.1,3.12.0', '--upstream', `exchange=${upstream.url}`, ...extra], {}), { logger: createLogger('silent') });
  old = await gatewayAt('3.5.1', upstream.url, extra);
  newest = await gatewayAt('3.12.0', upstream.url, extra);
});
test.before.each(async () => { await upstream.reset(); });
test.after(async () => {
  for (const g of [both, old, newest]) await g.close();
  await upstream.stop();
  await ws.stop();
});

const KEY = { 'X-MBX-APIKEY': API_KEY };
interface Answer { status: number; release: string | null; body: string }

async function ask(url: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(url, init);
  return { status: res.status, release: res.headers.get('x-gateway-release'), body: await res.text() };
}

/** The same request through the header and through the prefix must answer alike. */
async function at(release: string, path: string, init: RequestInit = {}): Promise<Answer> {
  const byHeader = await ask(`${both.url}${path}`, { ...init, headers: { ...(init.headers as object), 'X-Gateway-Release': release } });
  const byPrefix = await ask(`${both.url}/@${release}${path}`, init);
  assert.equal(byPrefix, byHeader, `${release} ${path}: prefix and header differ`);
  assert.is(byHeader.release, release);
  return byHeader;
}

test('POST /sapi/v1/margin/loan: at 3.5.1 it becomes borrow-repay, which needs a key (none here: 410 naming it); 410 at 3.12.0', async () => {
  const path = () => `/sapi/v1/margin/loan?${signed(`asset=BTC&amount=1&${ts()}`)}`;
  const a = await at('3.5.1', path(), { method: 'POST', headers: KEY });
  assert.is(a.status, 410, a.body);
  assert.match(a.body, /use POST \/sapi\/v1\/margin\/borrow-repay/);
  const b = await at('3.12.0', path(), { method: 'POST', headers: KEY });
  assert.is(b.status, 410);
  assert.match(b.body, /removed in 3\.6\.0/);
  assert.equal(await upstream.records(), [], 'the upstream (today\'s, by default) is never sent a call it no longer has');
});

test('POST /sapi/v1/margin/borrow-repay: 404 at 3.5.1, forwarded at 3.12.0', async () => {
  const path = () => `/sapi/v1/margin/borrow-repay?${signed(`asset=BTC&isIsolated=FALSE&symbol=BTCUSDT&amount=1&type=BORROW&${ts()}`)}`;
  const a = await at('3.5.1', path(), { method: 'POST', headers: KEY });
  assert.is(a.status, 404);
  assert.match(a.body, /added in 3\.6\.0/);
  const b = await at('3.12.0', path(), { method: 'POST', headers: KEY });
  assert.is(b.status, 200, b.body);
});

test('omitZeroBalances on GET /api/v3/account: -1103 at 3.5.1, accepted at 3.12.0', async () => {
  const path = () => `/api/v3/account?${signed(`omitZeroBalances=true&${ts()}`)}`;
  const a = await at('3.5.1', path(), { headers: KEY });
  assert.is(a.status, 400);
  assert.is(JSON.parse(a.body).code, -1103);
  const b = await at('3.12.0', path(), { headers: KEY });
  assert.is(b.status, 200, b.body);
});

test('no choice → the default (newest); an unserved release → 400 naming the served ones', async () => {
  const d = await ask(`${both.url}/api/v3/ping`);
  assert.is(d.release, '3.12.0');
  for (const init of [{ headers: { 'X-Gateway-Release': '3.6.0' } }, {}]) {
    const url = 'headers' in init ? `${both.url}/api/v3/ping` : `${both.url}/@3.6.0/api/v3/ping`;
    const r = await ask(url, init);
    assert.is(r.status, 400);
    const body = JSON.parse(r.body) as { code: number; msg: string };
    assert.is(body.code, -1130);
    assert.match(body.msg, /Release '3\.6\.0' is not served by this gateway; served: 3\.5\.1, 3\.12\.0 \(default 3\.12\.0\)/);
  }
  assert.is((await upstream.records()).length, 1, 'only the default-release ping was forwarded');
  const health = await (await fetch(`${both.url}/_gateway/health`)).json() as { releases: string[]; defaultRelease: string; catalogue: { hash: string } };
  assert.equal(health.releases, ['3.5.1', '3.12.0', '2025-12-09', '2026-03-10']); // each service's own line: github's newest, and the release its version header names
  assert.is(health.defaultRelease, '3.12.0');
  assert.match(health.catalogue.hash, /^[0-9a-f]{16}$/);
  const cat = await (await fetch(`${both.url}/_gateway/catalogue?release=3.5.1`)).json() as { release: { id: string } | null }[];
  assert.is(cat[0].release?.id, '3.5.1');
});

test('a malformed /@… prefix (a bad %-escape) is a 400 naming the served releases; the process keeps serving', async () => {
  for (const path of ['/@%E0/api/v3/ping', '/@%/api/v3/ping', '/@%E0%A4%A/api/v3/ping']) {
    const r = await ask(`${both.url}${path}`);
    assert.is(r.status, 400, `${path}: ${r.body}`);
    assert.match(JSON.parse(r.body).msg, /is not served by this gateway; served: 3\.5\.1, 3\.12\.0/);
  }
  const ws = await connect(`${wsUrl(both)}/@%E0/ws/btcusdt@trade`);
  assert.ok(isRefused(ws), 'the upgrade is refused');
  if (isRefused(ws)) {
    assert.is(ws.status, 400);
    assert.match(String(ws.body.msg), /is not served by this gateway/);
  }
  assert.is((await ask(`${both.url}/api/v3/ping`)).status, 200, 'still serving');
});

test('websocket /@3.5.1/ws/… is checked at 3.5.1', async () => {
  const early = await connect(`${wsUrl(both)}/@3.5.1/ws/btcusdt@avgPrice`);
  assert.ok(isRefused(early), 'avgPrice was added in 3.6.0');
  if (isRefused(early)) {
    assert.is(early.status, 400);
    assert.is(early.headers['x-gateway-release'], '3.5.1');
  }
  const late = await connect(`${wsUrl(both)}/@3.12.0/ws/btcusdt@avgPrice`);
  assert.not.ok(isRefused(late), 'served at 3.12.0');
  if (!isRefused(late)) {
    assert.is(late.headers['x-gateway-release'], '3.12.0');
    late.ws.close();
  }
});

test('200 requests across both releases answer as two single-release gateways do', async () => {
  const paths = [
    '/api/v3/ping', '/api/v3/ticker/price?symbol=BNBUSDT', '/api/v3/klines?symbol=BNBUSDT&interval=1s', '/api/v3/klines?symbol=BNBUSDT&interval=1x',
    '/api/v3/depth?symbol=BNBUSDT&limit=5000', '/api/v3/avgPrice', '/sapi/v1/margin/borrow-repay', '/api/v3/uiKlines?symbol=X&interval=1m',
    '/api/v3/ticker/tradingDay?symbol=BNBUSDT', '/api/v3/nothing',
  ];
  let compared = 0;
  for (let i = 0; i < 200; i++) {
    const release = i % 2 ? '3.5.1' : '3.12.0';
    const single = release === '3.5.1' ? old : newest;
    const path = paths[i % paths.length];
    const a = await ask(`${both.url}/@${release}${path}`);
    const b = await ask(`${single.url}${path}`);
    // The upstream echoes the request URL, which is the same either way.
    assert.equal(a, b, `${release} ${path}`);
    compared++;
  }
  assert.is(compared, 200);
});

test('releases share what does not change between them: endpoint states, compiled validators', async () => {
  const state = both.gateway.state();
  const [early, late] = ['3.5.1', '3.12.0'].map((id) => state.byId.get(id)!);
  const at = (s: typeof early, key: string) => s.views[0].endpoints.find((e) => e.endpoint.key === key)!;
  // GET /sapi/v1/algo/spot/subOrders is the same at both releases; GET /api/v3/account gained omitZeroBalances in 3.8.1.
  const SUB_ORDERS = 'GET /sapi/v1/algo/spot/subOrders';
  assert.ok(at(early, SUB_ORDERS) === at(late, SUB_ORDERS), 'an unchanged endpoint is one object');
  assert.ok(at(early, 'GET /api/v3/account') !== at(late, 'GET /api/v3/account'), 'a changed one is not');
  // Its parameters are checked (and refused: algoId is missing) with one compiled validator for both releases.
  for (const id of ['3.5.1', '3.12.0']) {
    const a = await ask(`${both.url}/@${id}/sapi/v1/algo/spot/subOrders?timestamp=1&signature=x`, { headers: KEY });
    assert.is(a.status, 400, a.body);
    assert.match(a.body, /algoId/);
  }
  const validator = (s: typeof early) => (s.program.table.byKey(SUB_ORDERS)!.cache.get('params') as { validate: unknown }).validate;
  assert.ok(validator(early) !== undefined && validator(early) === validator(late), 'identical schemas compile once');
  assert.ok(early.program.paramAjv === late.program.paramAjv, 'one ajv for every release');
});

test.run();
