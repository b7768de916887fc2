// The marginListenKeys bridge (docs/user-data.md, issue 48 item 3): against a local exchange that
// speaks only today's margin user data (a listen token from POST /sapi/v1/userListenToken, then
// ws-api userDataStream.subscribe.listenToken), a client pinned at 3.12.0 keeps its margin and
// isolated-margin listen keys through a gateway in signing mode: the gateway obtains a token per
// account with its key, subscribes with it, renews it before it expires, and feeds each key's
// /ws/<listenKey> the events of its account in the old bare shape. Without a key: 410.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { readConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { closed, connect, isRefused, nextMessage, open, sleep } from '../websocket/ws-upstream.js';
import { HMAC_KEY, HMAC_SECRET, UPSTREAM_KEYS } from '../signing/support.js';
import { writeTokens } from './tokens-file.js';
import { until } from '../support/until.js';

const test = suite('user data: margin listen keys carried onto listen-token subscriptions');

const TOKENS = {
  bot: 'gwt_mlkbot-5c1e8a7b9d3f2e4a6b8c0d1e2f3a4b5c6d7e8f9a0b1c2d3e',
  narrow: 'gwt_mlknarrow-0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5',
};
const tokensFile = writeTokens('margin-listen-key-tokens.yaml', [
  { name: 'bot', token: TOKENS.bot, rights: ['user-data'], allow: ['GET /api/v3/*'] },
  { name: 'narrow', token: TOKENS.narrow, allow: ["'* /sapi/v1/userDataStream'", "'* /sapi/v1/userDataStream/isolated'", "ws: '*'"] },
]);

const CROSS = { e: 'outboundAccountPosition', E: 1564034571105, u: 1564034571073, B: [{ a: 'BNB', f: '1.00000000', l: '0.00000000' }] };
const ISOLATED = { e: 'executionReport', E: 1499405658658, s: 'BNBUSDT', S: 'BUY', o: 'LIMIT', x: 'NEW', X: 'NEW', i: 4293153 };
const KEYED = { EXCHANGE_API_KEY: HMAC_KEY, EXCHANGE_API_SECRET: HMAC_SECRET };

let up: Upstream;
let gw: RunningGateway;
const logs: string[] = [];

function args(extra: string[] = []): string[] {
  const ws = up.url.replace(/^http/, 'ws');
  return ['--port', '0', '--release', '3.12.0,2026.08.21', '--tokens-file', tokensFile, '--upstream', `exchange=${up.url}`,
    '--upstream', `exchange.wsApi=${ws}`, '--upstream', `exchange.streams=${ws}`, '--user-data-linger', '100', ...extra];
}
const start = (env: NodeJS.ProcessEnv, extra: string[] = [], tokenParams?: Record<string, string>) =>
  startGateway(readConfig(args(extra), env), { logger: createLogger('silent'), websocket: { userDataTokenParams: tokenParams } });

test.before(async () => {
  up = await startUpstream(UPSTREAM_KEYS);
  gw = await startGateway(readConfig(args(), KEYED), { logger: createLogger('debug', (l) => logs.push(l)) });
});
test.before.each(async () => { await fetch(`${up.url}/__reset`, { method: 'POST' }); });
test.after(async () => {
  await gw.close();
  await up.stop();
});

const auth = { Authorization: `Bearer ${TOKENS.bot}`, 'X-MBX-APIKEY': 'the-client-s-own-key' };
const call = (g: RunningGateway, method: string, path: string, token = TOKENS.bot) =>
  fetch(`${g.url}/@3.12.0${path}`, { method, headers: { ...auth, Authorization: `Bearer ${token}` } });
async function create(g: RunningGateway, path: string): Promise<string> {
  const r = await call(g, 'POST', path);
  const body = await r.json() as { listenKey: string };
  assert.is(r.status, 200, JSON.stringify(body));
  assert.match(body.listenKey, /^[A-Za-z0-9]{60}$/);
  return body.listenKey;
}
const stream = (g: RunningGateway, key: string) => open(`${g.url.replace(/^http/, 'ws')}/@3.12.0/ws/${key}?token=${TOKENS.bot}`);
const next = async (ws: Parameters<typeof nextMessage>[0], ms?: number) => JSON.parse(String((await nextMessage(ws, ms)).data)) as Record<string, unknown>;


/** Calls of the retired margin listen-key flow the stand-in saw (REST) — none may reach it. */
const retired = (records: { url: string }[]) => records.filter((r) => r.url.startsWith('/sapi/v1/userDataStream')).map((r) => r.url);

test('pinned at 3.12.0: cross and isolated margin keys created, their streams fed bare from each account\'s listen-token subscription, renewed and closed; no retired call', async () => {
  const cross = await create(gw, '/sapi/v1/userDataStream');
  const isolated = await create(gw, '/sapi/v1/userDataStream/isolated?symbol=BNBUSDT');
  assert.not.equal(cross, isolated);
  // One token per account, asked with the gateway's key (API key header, form body, no signature).
  const asked = await up.records();
  assert.equal(asked.map((r) => [r.method, r.url, r.headers['x-mbx-apikey'], r.verified, r.body]), [
    ['POST', '/sapi/v1/userListenToken', HMAC_KEY, null, ''],
    ['POST', '/sapi/v1/userListenToken', HMAC_KEY, null, 'isIsolated=true&symbol=BNBUSDT'],
  ]);
  const c = await stream(gw, cross);
  const i = await stream(gw, isolated);
  await until(async () => (await up.userData()).margin.length === 2);
  const { frames, margin } = await up.userData();
  assert.equal(frames.map((f) => [f.method, typeof f.params.listenToken]), [['userDataStream.subscribe.listenToken', 'string'], ['userDataStream.subscribe.listenToken', 'string']]);
  assert.equal(margin.map((m) => m.account).sort(), ['BNBUSDT', 'margin']);
  assert.is(await up.emit(ISOLATED, 'BNBUSDT'), 1);
  assert.is(await up.emit(CROSS, 'margin'), 1);
  assert.equal(await next(i.ws), ISOLATED); // the old bare shape, each account's events on its own key's stream
  assert.equal(await next(c.ws), CROSS);
  // Renewal: each key by its own endpoint; a key of another account is unknown there.
  for (const [path, key] of [['/sapi/v1/userDataStream', cross], ['/sapi/v1/userDataStream/isolated?symbol=BNBUSDT&', isolated]]) {
    const r = await call(gw, 'PUT', `${path}${path.includes('?') ? '' : '?'}listenKey=${key}`);
    assert.equal([r.status, await r.json()], [200, {}]);
  }
  for (const [method, path] of [['PUT', `/sapi/v1/userDataStream/isolated?symbol=BNBUSDT&listenKey=${cross}`], ['PUT', `/sapi/v1/userDataStream?listenKey=${isolated}`],
    ['PUT', `/sapi/v1/userDataStream/isolated?symbol=ETHUSDT&listenKey=${isolated}`], ['DELETE', `/api/v3/userDataStream?listenKey=${cross}`]]) {
    const r = await call(gw, method, path);
    assert.equal([r.status, await r.json()], [400, { code: -1130, msg: 'This listenKey does not exist.' }], `${method} ${path}`);
  }
  // Closing a key closes its stream and ends its account's subscription (the other account's stays).
  const ended = closed(c.ws);
  const r = await call(gw, 'DELETE', `/sapi/v1/userDataStream?listenKey=${cross}`);
  assert.equal([r.status, await r.json()], [200, {}]);
  assert.is((await ended).code, 1000);
  await until(async () => (await up.userData()).margin.length === 1);
  assert.equal((await up.userData()).margin.map((m) => m.account), ['BNBUSDT']);
  const r2 = await call(gw, 'DELETE', `/sapi/v1/userDataStream/isolated?symbol=BNBUSDT&listenKey=${isolated}`);
  assert.is(r2.status, 200);
  await until(async () => (await up.userData()).active === 0);
  const after = await up.userData();
  const unsubscribed = after.frames.filter((f) => f.method === 'userDataStream.unsubscribe').map((f) => Object.keys(f.params));
  assert.equal(unsubscribed, [['subscriptionId'], ['subscriptionId']]);
  assert.equal(retired(await up.records()), []);
  assert.equal(after.frames.filter((f) => /^userDataStream\.(start|ping|stop)$/.test(f.method)), []);
  i.ws.close();
});

test('the listen token is renewed before it expires: a new token sent again on the same connection, the same subscription; events keep arriving', async () => {
  const g = await start(KEYED, [], { validity: '700' });
  try {
    const key = await create(g, '/sapi/v1/userDataStream');
    const c = await stream(g, key);
    // Two renewals: each a new token (REST), then subscribe.listenToken again on the same connection.
    await until(async () => (await up.userData()).frames.filter((f) => f.method === 'userDataStream.subscribe.listenToken').length >= 3, 5000);
    const { frames, margin } = await up.userData();
    const tokens = frames.filter((f) => f.method === 'userDataStream.subscribe.listenToken').map((f) => f.params.listenToken);
    assert.is(new Set(tokens).size, tokens.length, 'a new token each time');
    assert.is(margin.length, 1, 'one subscription, extended');
    const asked = (await up.records()).filter((r) => r.url === '/sapi/v1/userListenToken');
    assert.ok(asked.length >= 3 && asked.every((r) => r.body === 'validity=700'), asked.map((r) => r.body).join());
    await sleep(400); // past the first token's expiry: the subscription lives on
    assert.is(await up.emit(CROSS, 'margin'), 1);
    assert.equal(await next(c.ws), CROSS); // and the stream never saw eventStreamTerminated
    c.ws.close();
    await closed(c.ws);
  } finally {
    await g.close();
  }
});

test('a hostile exchange: renewals refused, the subscription lapses (eventStreamTerminated, not passed on) and is made again with a new token', async () => {
  const g = await start(KEYED, [], { validity: '600' });
  try {
    const key = await create(g, '/sapi/v1/userDataStream');
    const c = await stream(g, key);
    await until(async () => (await up.userData()).margin.length === 1);
    const first = (await up.userData()).margin[0].subscriptionId;
    await fetch(`${up.url}/__user-data/refuse`, { method: 'POST', body: JSON.stringify({ token: true, times: 2, status: 500, code: -1001 }) });
    await until(async () => { const m = (await up.userData()).margin; return m.length === 1 && m[0].subscriptionId !== first; }, 8000);
    assert.is(await up.emit(CROSS, 'margin'), 1);
    assert.equal(await next(c.ws), CROSS); // the first frame it gets: no eventStreamTerminated before it
    c.ws.close();
    await closed(c.ws);
  } finally {
    await g.close();
  }
});

test('a renewal the exchange never answers is given up at --timeout and tried again before the token expires: the same subscription lives on', async () => {
  const lines: string[] = [];
  // Validity 8 s: renewed at 6.4 s, given up at 6.9 s, tried again at ~7.45 s, leaving ~0.5 s for the
  // second try; with every call bound to --timeout 500 ms (200 ms lost the create itself on a loaded CI).
  const g = await startGateway(readConfig(args(['--timeout', '500']), KEYED), { logger: createLogger('warn', (l) => lines.push(l)), websocket: { userDataTokenParams: { validity: '8000' } } });
  try {
    const key = await create(g, '/sapi/v1/userDataStream');
    const c = await stream(g, key);
    await until(async () => (await up.userData()).margin.length === 1);
    const first = (await up.userData()).margin[0];
    await fetch(`${up.url}/__user-data/refuse`, { method: 'POST', body: JSON.stringify({ times: 1, silent: true }) }); // the first renewal frame: no answer
    await until(async () => (await up.userData()).margin[0]?.expirationTime > first.expirationTime, 10_000);
    assert.is((await up.userData()).margin[0].subscriptionId, first.subscriptionId, 'extended, not made again');
    assert.ok(lines.some((l) => l.includes('no answer to renewing userDataStream.subscribe.listenToken within 500 ms')), lines.join('\n'));
    assert.is(await up.emit(CROSS, 'margin'), 1);
    assert.equal(await next(c.ws), CROSS);
    c.ws.close();
    await closed(c.ws);
  } finally {
    await g.close();
  }
});

test('the account is the exchange\'s word: an unknown isolated account answers its refusal, a missing symbol 400; no key minted, nothing retired sent', async () => {
  await fetch(`${up.url}/__user-data/refuse`, { method: 'POST', body: JSON.stringify({ token: true, times: 1, status: 400, code: -11001 }) });
  const r = await call(gw, 'POST', '/sapi/v1/userDataStream/isolated?symbol=NOSUCHPAIR');
  assert.equal([r.status, await r.json()], [400, { code: -11001, msg: 'test refusal' }]);
  const missing = await call(gw, 'POST', '/sapi/v1/userDataStream/isolated');
  const body = await missing.json() as { code: number; msg: string };
  assert.equal([missing.status, body.code], [400, -1102]);
  assert.match(body.msg, "Mandatory parameter 'symbol' was not sent");
  assert.equal((await up.records()).map((x) => x.body), ['isIsolated=true&symbol=NOSUCHPAIR']); // the missing symbol cost nothing upstream
  assert.equal(retired(await up.records()), []);
});

test('a token answer that never comes is given up at --timeout (504); a malformed one is no token (502); the gateway keeps serving', async () => {
  const g = await start(KEYED, ['--timeout', '1000']); // not less: the calls that must go through share it, on a loaded machine too
  try {
    await fetch(`${up.url}/__user-data/refuse`, { method: 'POST', body: JSON.stringify({ token: true, times: 1, silent: true }) });
    const t0 = Date.now();
    const slow = await call(g, 'POST', '/sapi/v1/userDataStream');
    assert.is(slow.status, 504);
    assert.ok(Date.now() - t0 < 3000, `gave up in ${Date.now() - t0} ms`);
    await sleep(1100); // the request the gateway made is given up too (a create meanwhile waits for that one)
    await fetch(`${up.url}/__user-data/refuse`, { method: 'POST', body: JSON.stringify({ token: true, times: 1, status: 503, code: -1001 }) });
    const refused = await call(g, 'POST', '/sapi/v1/userDataStream');
    const body = await refused.json() as { msg: string };
    assert.is(refused.status, 502);
    assert.match(body.msg, 'The upstream refused the gateway a listen token (POST /sapi/v1/userListenToken): 503 -1001');
    assert.is((await call(g, 'POST', '/sapi/v1/userDataStream')).status, 200); // and the next one goes through
  } finally {
    await g.close();
  }
});

test('bounds: one token\'s keys of every kind count together; past the bound a create for an account it holds no key of is refused 429; new accounts are tried at a bounded rate', async () => {
  const g = await start(KEYED, ['--user-data-keys-per-token', '1']);
  try {
    const spot = await create(g, '/api/v3/userDataStream');
    const r = await call(g, 'POST', '/sapi/v1/userDataStream');
    const body = await r.json() as { msg: string };
    assert.is(r.status, 429);
    assert.match(body.msg, 'holds 1 listen keys, the most it may (GATEWAY_USER_DATA_KEYS_PER_TOKEN), none of them for this account');
    assert.is((await call(g, 'DELETE', `/api/v3/userDataStream?listenKey=${spot}`)).status, 200);
    const cross = await create(g, '/sapi/v1/userDataStream');
    assert.is(await create(g, '/sapi/v1/userDataStream'), cross); // at the bound: the account's key answered again, as the exchange did
    assert.is((await call(g, 'DELETE', `/sapi/v1/userDataStream?listenKey=${cross}`)).status, 200);
    // Accounts new to the gateway: a burst of 5, then refused with Retry-After (each try cost an upstream call).
    await fetch(`${up.url}/__reset`, { method: 'POST' });
    const statuses: number[] = [];
    for (let n = 0; n < 8; n++) {
      await fetch(`${up.url}/__user-data/refuse`, { method: 'POST', body: JSON.stringify({ token: true, times: 1, status: 400, code: -11001 }) });
      statuses.push((await call(g, 'POST', `/sapi/v1/userDataStream/isolated?symbol=MADEUP${n}`)).status);
    }
    assert.equal(statuses.slice(0, 4), [400, 400, 400, 400]); // the burst (5, one taken by the cross account)
    assert.ok(statuses.slice(4).filter((s) => s === 429).length >= 2, statuses.join());
    assert.ok((await up.records()).length <= 6, 'at most the burst and a second of refill reached the upstream');
  } finally {
    await g.close();
  }
});

test('rights: a token allowed the paths but without the user-data right gets 403 for the margin calls and the streams of their keys; nothing sent', async () => {
  for (const [method, path] of [['POST', '/sapi/v1/userDataStream'], ['POST', '/sapi/v1/userDataStream/isolated?symbol=BNBUSDT'], ['PUT', '/sapi/v1/userDataStream?listenKey=x']]) {
    const r = await call(gw, method, path, TOKENS.narrow);
    assert.is(r.status, 403, `${method} ${path}`);
    assert.match(((await r.json()) as { msg: string }).msg, /user-data right/);
  }
  const key = await create(gw, '/sapi/v1/userDataStream');
  const s = await connect(`${gw.url.replace(/^http/, 'ws')}/@3.12.0/ws/${key}?token=${TOKENS.narrow}`);
  if (!isRefused(s)) s.ws.terminate();
  assert.ok(isRefused(s) && s.status === 403, 'the stream of a margin key: 403 without the right');
  assert.equal((await up.records()).map((r) => r.url), ['/sapi/v1/userListenToken']); // the bot's create only
  assert.is((await call(gw, 'DELETE', `/sapi/v1/userDataStream?listenKey=${key}`)).status, 200);
});

test('plan explains the bridge; without a key the six margin calls answer 410 naming the listen-token flow, nothing sent', async () => {
  const plan = await (await fetch(`${gw.url}/_gateway/plan?release=3.12.0&operation=${encodeURIComponent('POST /sapi/v1/userDataStream/isolated')}`)).json() as { decision: string };
  assert.match(plan.decision, /isolated-margin-listen-key-create: bridge marginListenKeys, create\), holding ws-api userDataStream\.subscribe\.listenToken upstream/);
  const keyless = await start({});
  try {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      for (const path of ['/sapi/v1/userDataStream', '/sapi/v1/userDataStream/isolated?symbol=BNBUSDT']) {
        const q = method === 'POST' ? '' : `${path.includes('?') ? '&' : '?'}listenKey=${'a'.repeat(60)}`;
        const r = await call(keyless, method, `${path}${q}`);
        const body = await r.json() as { code: number; msg: string };
        assert.equal([r.status, body.code], [410, -1020], `${method} ${path}`);
        assert.match(body.msg, /removed in 2026\.01\.21 .*use the margin listen-token subscription: POST \/sapi\/v1\/userListenToken, then ws-api userDataStream\.subscribe\.listenToken$/);
      }
    }
  } finally {
    await keyless.close();
  }
  assert.equal(await up.records(), []);
  assert.equal((await up.userData()).frames, []);
});

test('no token, listen token or secret in any log line', () => {
  const text = logs.join('\n');
  for (const secret of [HMAC_SECRET, ...Object.values(TOKENS)]) assert.not.ok(text.includes(secret));
  assert.not.ok(/listenToken["=:]/.test(text));
});

test.run();
