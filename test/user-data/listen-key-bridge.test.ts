// User data after the listen-key retirement (docs/user-data.md): against a local exchange that speaks
// only today's mechanism (test/support/exchange-upstream.ts: websocket-API user-data subscriptions,
// verified signatures; its REST userDataStream and userDataStream.start/ping/stop are gone), the
// exchange's own 2023-era client (@binance/connector 3.6.1) keeps its listen-key flow through a gateway
// pinned at 3.12.0, today's frames subscribe with a token only, a gateway without a key answers 410,
// and a narrow token gets nothing.
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { readConfig } from '../../src/config.js';
import { hashLine } from '../../src/gateway/client-auth/tokens.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { closed, connect, isRefused, nextMessage, open, sleep } from '../websocket/ws-upstream.js';
import { dir, ED, ED_KEY, HMAC_KEY, HMAC_SECRET, UPSTREAM_KEYS } from '../signing/support.js';
import { until } from '../support/until.js';

const test = suite('user data: the listen-key bridge and today\'s subscription through the gateway');

const TOKENS = {
  bot: 'gwt_bot-5c1e8a7b9d3f2e4a6b8c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f',
  narrow: 'gwt_narrow-0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a',
  other: 'gwt_other-a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6',
};
const tokensFile = join(dir, 'user-data-tokens.yaml');
writeFileSync(tokensFile, `tokens:
  - name: bot
    hash: ${hashLine(TOKENS.bot)}
    rights: [user-data]
    allow:
      - GET /api/v3/*
      - ws: '*'
  - name: narrow
    hash: ${hashLine(TOKENS.narrow)}
    allow:
      - GET /api/v3/ticker/price
      - '* /api/v3/userDataStream'
      - ws: 'userDataStream.*'
  - name: other
    hash: ${hashLine(TOKENS.other)}
    allow:
      - '* /**'
`);

const EVENTS = [
  { e: 'executionReport', E: 1499405658658, s: 'ETHBTC', c: 'mUvoqJxFIILMdfAW5iGSOW', S: 'BUY', o: 'LIMIT', x: 'NEW', X: 'NEW', i: 4293153 },
  { e: 'outboundAccountPosition', E: 1564034571105, u: 1564034571073, B: [{ a: 'ETH', f: '10000.000000', l: '0.000000' }] },
  { e: 'balanceUpdate', E: 1573200697110, a: 'BTC', d: '100.00000000', T: 1573200697068 },
];

let up: Upstream;
let gw: RunningGateway;
let keyless: RunningGateway;
const logs: string[] = [];

function args(extra: string[] = []): string[] {
  const ws = up.url.replace(/^http/, 'ws');
  return ['--port', '0', '--release', '3.12.0,2026.08.21', '--default-release', '3.12.0', '--tokens-file', tokensFile, '--upstream', `exchange=${up.url}`,
    '--upstream', `exchange.wsApi=${ws}`, '--upstream', `exchange.streams=${ws}`, '--user-data-linger', '200', ...extra];
}

test.before(async () => {
  up = await startUpstream(UPSTREAM_KEYS);
  gw = await startGateway(readConfig(args(), { EXCHANGE_API_KEY: HMAC_KEY, EXCHANGE_API_SECRET: HMAC_SECRET }), { logger: createLogger('debug', (l) => logs.push(l)) });
  keyless = await startGateway(readConfig(args(), {}), { logger: createLogger('silent') });
});
test.before.each(async () => { await up.reset(); });
test.after(async () => {
  await gw.close();
  await keyless.close();
  await up.stop();
});

const pinned = (g: RunningGateway) => `${g.url}/@3.12.0`;
const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });
const wsBase = (g: RunningGateway) => g.url.replace(/^http/, 'ws');

/** Poll until `f` is true (or fail after `ms`). */

const retired = (frames: { method: string }[], records: { url: string }[]) => [
  ...records.filter((r) => r.url.startsWith('/api/v3/userDataStream')).map((r) => r.url),
  ...frames.filter((f) => /^userDataStream\.(start|ping|stop)$/.test(f.method)).map((f) => f.method),
];

interface ConnectorSpot {
  createListenKey(): Promise<{ status: number; data: { listenKey: string } }>;
  renewListenKey(k: string): Promise<{ status: number; data: unknown }>;
  closeListenKey(k: string): Promise<{ status: number; data: unknown }>;
}
interface ConnectorStream { userData(listenKey: string): void; disconnect(): void }

test('@binance/connector 3.6.1 (2023): create, read executionReport / outboundAccountPosition / balanceUpdate, renew, close, all at 3.12.0', async () => {
  const require = createRequire(import.meta.url);
  const connectorRequire = createRequire(require.resolve('@binance/connector'));
  const axios = connectorRequire('axios') as { defaults: { headers: { common: Record<string, string> } } };
  const { Spot, WebsocketStream } = require('@binance/connector') as {
    Spot: new (k: string, s: string, o: Record<string, unknown>) => ConnectorSpot;
    WebsocketStream: new (o: Record<string, unknown>) => ConnectorStream;
  };
  const quiet = { log() {}, info() {}, warn() {}, error() {}, debug() {} };
  // The connector sets no Authorization of its own: the token rides on axios's defaults, as any header would.
  axios.defaults.headers.common.Authorization = `Bearer ${TOKENS.bot}`;
  try {
    const client = new Spot('not-the-exchange-key', '', { baseURL: pinned(gw), logger: quiet });
    const created = await client.createListenKey();
    assert.is(created.status, 200);
    const key = created.data.listenKey;
    assert.match(key, /^[A-Za-z0-9]{60}$/);
    const received: unknown[] = [];
    // Its websocket library sets no headers: the token is the documented ?token= (taken off before anything else sees it).
    const stream = new WebsocketStream({ wsURL: `${wsBase(gw)}/@3.12.0`, logger: quiet, callbacks: { message: (m: string) => received.push(JSON.parse(m)) } });
    stream.userData(`${key}?token=${TOKENS.bot}`);
    await until(async () => (await up.userData()).active === 1);
    const signed = (await up.userData()).frames;
    assert.equal(signed.map((f) => [f.method, f.verified]), [['userDataStream.subscribe.signature', true]]);
    for (const e of EVENTS) assert.is(await up.emit(e), 1);
    await until(async () => received.length === 3);
    assert.equal(received, EVENTS); // the old bare shape: no subscriptionId, no "event" wrapper
    const renewed = await client.renewListenKey(key);
    assert.equal([renewed.status, renewed.data], [200, {}]);
    stream.disconnect();
    const closedKey = await client.closeListenKey(key);
    assert.equal([closedKey.status, closedKey.data], [200, {}]);
    await until(async () => (await up.userData()).active === 0); // close ended the upstream subscription
    const { frames } = await up.userData();
    assert.equal(retired(frames, await up.records()), []); // the stub never saw a retired call
    // It ended its own subscription by the id the subscribe answer gave (the field events.upstream names "<subscriptionId>").
    const unsubscribed = frames.filter((f) => f.method === 'userDataStream.unsubscribe').map((f) => f.params);
    assert.equal(unsubscribed.map((p) => Object.keys(p)), [['subscriptionId']]);
    assert.type(unsubscribed[0].subscriptionId, 'number');
    assert.equal((await up.records()).length, 0); // nothing of the REST calls was forwarded
  } finally {
    delete axios.defaults.headers.common.Authorization;
  }
});

test('a listen-key stream whose client stopped reading is closed 1008 at --ws-max-buffered, and the gateway keeps serving (issue 46 finding 2)', async () => {
  const lines: string[] = [];
  const bounded = await startGateway(readConfig(args(['--ws-max-buffered', '65536']), { EXCHANGE_API_KEY: HMAC_KEY, EXCHANGE_API_SECRET: HMAC_SECRET }), { logger: createLogger('warn', (l) => lines.push(l)) });
  try {
    const created = await fetch(`${pinned(bounded)}/api/v3/userDataStream`, { method: 'POST', headers: bearer(TOKENS.bot) });
    const { listenKey } = await created.json() as { listenKey: string };
    const c = await open(`${wsBase(bounded)}/@3.12.0/ws/${listenKey}?token=${TOKENS.bot}`);
    await until(async () => (await up.userData()).active === 1);
    const socket = (c.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    socket.pause(); // a client that stopped reading: the kernel's buffers fill, then the gateway's
    const big = { e: 'balanceUpdate', E: 1573200697110, a: 'BTC', d: 'x'.repeat(256 * 1024), T: 1573200697068 };
    const slow = () => lines.some((l) => l.includes('too slow'));
    for (let i = 0; i < 120 && !slow(); i++) {
      await up.emit(big);
      if (i % 20 === 19) await sleep(100); // let the gateway take what was sent
    }
    await until(async () => slow(), 20_000); // a loaded machine takes a while to fill the buffers
    assert.ok(lines.some((l) => l.includes("a listen-key stream's client is too slow (more than 65536 bytes waiting), closed with 1008")), lines.join('\n'));
    const ended = closed(c.ws);
    socket.resume();
    assert.is((await ended).code, 1008);
    assert.is((await fetch(`${bounded.url}/api/v3/ping`, { headers: bearer(TOKENS.bot) })).status, 200);
  } finally { await bounded.close(); }
});

test('an upstream event over 1 MiB is dropped with one warning, never fanned out; the next small one arrives (issue 46 finding 15)', async () => {
  const created = await fetch(`${pinned(gw)}/api/v3/userDataStream`, { method: 'POST', headers: bearer(TOKENS.bot) });
  const { listenKey } = await created.json() as { listenKey: string };
  const c = await open(`${wsBase(gw)}/@3.12.0/ws/${listenKey}?token=${TOKENS.bot}`);
  await until(async () => (await up.userData()).active === 1);
  const before = logs.length;
  await up.emit({ e: 'balanceUpdate', E: 1573200697110, a: 'BTC', d: 'x'.repeat(2 * 1024 * 1024), T: 1573200697068 });
  await up.emit(EVENTS[2]);
  assert.equal(JSON.parse(String((await nextMessage(c.ws)).data)), EVENTS[2]); // the big one never came
  assert.ok(logs.slice(before).some((l) => /an upstream frame of \d+ bytes \(over 1048576\) was dropped/.test(l)));
  c.ws.close();
  await closed(c.ws);
});

test('one token holds at most --user-data-streams-per-token listen-key streams; closing one frees its place (issue 46 finding 6)', async () => {
  const bounded = await startGateway(readConfig(args(['--user-data-streams-per-token', '2']), { EXCHANGE_API_KEY: HMAC_KEY, EXCHANGE_API_SECRET: HMAC_SECRET }), { logger: createLogger('silent') });
  try {
    const created = await fetch(`${pinned(bounded)}/api/v3/userDataStream`, { method: 'POST', headers: bearer(TOKENS.bot) });
    const { listenKey } = await created.json() as { listenKey: string };
    const url = `${wsBase(bounded)}/@3.12.0/ws/${listenKey}?token=${TOKENS.bot}`;
    const first = await open(url);
    const second = await open(url);
    const third = await connect(url);
    if (!isRefused(third)) third.ws.terminate();
    assert.ok(isRefused(third) && third.status === 429, `the third is refused 429 (${isRefused(third) ? third.status : 'opened'})`);
    assert.match(JSON.stringify(isRefused(third) ? third.body : ''), 'holds 2 listen-key streams open, the most it may (--user-data-streams-per-token 2)');
    first.ws.close();
    await closed(first.ws);
    await sleep(50);
    const again = await open(url); // its place is free again
    for (const c of [second, again]) { c.ws.close(); await closed(c.ws); }
  } finally { await bounded.close(); }
});

test('the combined stream wraps the old event as the stream server did; another token\'s key is unknown', async () => {
  const created = await fetch(`${pinned(gw)}/api/v3/userDataStream`, { method: 'POST', headers: bearer(TOKENS.bot) });
  const { listenKey } = await created.json() as { listenKey: string };
  const c = await open(`${wsBase(gw)}/@3.12.0/stream?streams=${listenKey}&token=${TOKENS.bot}`);
  await until(async () => (await up.userData()).active === 1);
  await up.emit(EVENTS[2]);
  assert.equal(JSON.parse(String((await nextMessage(c.ws)).data)), { stream: listenKey, data: EVENTS[2] });
  // Another token can neither read, renew nor close it.
  const theirs = await connect(`${wsBase(gw)}/@3.12.0/ws/${listenKey}?token=${TOKENS.other}`);
  if (!isRefused(theirs)) theirs.ws.terminate();
  assert.ok(isRefused(theirs) && theirs.status === 400, `another token cannot open the stream (${isRefused(theirs) ? theirs.status : 'opened'})`);
  for (const method of ['PUT', 'DELETE']) {
    const r = await fetch(`${pinned(gw)}/api/v3/userDataStream?listenKey=${listenKey}`, { method, headers: bearer(TOKENS.other) });
    assert.equal([r.status, await r.json()], [400, { code: -1130, msg: 'This listenKey does not exist.' }]);
  }
  c.ws.close();
  await closed(c.ws);
  await until(async () => (await up.userData()).active === 0);
});

test('today\'s frames with a token only: the gateway signs userDataStream.subscribe.signature, events arrive wrapped, unsubscribe ends it', async () => {
  const c = await open(`${wsBase(gw)}/@2026.08.21/ws-api/v3`, { headers: bearer(TOKENS.bot) });
  c.ws.send(JSON.stringify({ id: 'sub', method: 'userDataStream.subscribe.signature', params: {} }));
  const answer = JSON.parse(String((await nextMessage(c.ws)).data));
  assert.equal([answer.id, answer.status, typeof answer.result.subscriptionId], ['sub', 200, 'number']);
  const { frames } = await up.userData();
  assert.equal(frames.map((f) => [f.method, f.verified, f.params.apiKey]), [['userDataStream.subscribe.signature', true, HMAC_KEY]]);
  await up.emit(EVENTS[0]);
  assert.equal(JSON.parse(String((await nextMessage(c.ws)).data)), { subscriptionId: answer.result.subscriptionId, event: EVENTS[0] });
  c.ws.send(JSON.stringify({ id: 'list', method: 'session.subscriptions', params: {} }));
  assert.equal(JSON.parse(String((await nextMessage(c.ws)).data)).result, [{ subscriptionId: answer.result.subscriptionId }]);
  c.ws.send(JSON.stringify({ id: 'unsub', method: 'userDataStream.unsubscribe', params: { subscriptionId: answer.result.subscriptionId } }));
  assert.equal(JSON.parse(String((await nextMessage(c.ws)).data)), { id: 'unsub', status: 200, result: {} });
  assert.is((await up.userData()).active, 0);
  c.ws.close();
});

test('an Ed25519 key held by the gateway: session.logon with params {} is signed, then userDataStream.subscribe; logout ends it', async () => {
  const ed = await startGateway(readConfig(args(), { EXCHANGE_API_KEY: ED_KEY, EXCHANGE_PRIVATE_KEY_FILE: ED.privateFile }), { logger: createLogger('silent') });
  try {
    const c = await open(`${wsBase(ed)}/@2026.08.21/ws-api/v3`, { headers: bearer(TOKENS.bot) });
    const call = async (id: string, method: string, params: Record<string, unknown> = {}) => {
      c.ws.send(JSON.stringify({ id, method, params }));
      return JSON.parse(String((await nextMessage(c.ws)).data));
    };
    const logon = await call('in', 'session.logon');
    assert.equal([logon.status, logon.result.apiKey], [200, ED_KEY]);
    const sub = await call('sub', 'userDataStream.subscribe');
    assert.is(sub.status, 200);
    await up.emit(EVENTS[1]);
    assert.equal(JSON.parse(String((await nextMessage(c.ws)).data)), { subscriptionId: sub.result.subscriptionId, event: EVENTS[1] });
    assert.equal((await up.userData()).frames.map((f) => [f.method, f.verified]), [['session.logon', true], ['userDataStream.subscribe', null]]);
    assert.is((await call('out', 'session.logout')).status, 200);
    assert.is((await up.userData()).active, 0);
    c.ws.close();
  } finally {
    await ed.close();
  }
});

test('a listen key not renewed in time gets listenKeyExpired, and no more events; its subscription ends', async () => {
  const short = await startGateway(readConfig(args(), { EXCHANGE_API_KEY: HMAC_KEY, EXCHANGE_API_SECRET: HMAC_SECRET }), { logger: createLogger('silent'), websocket: { userDataExpiresAfterMs: 600 } });
  try {
    const r = await fetch(`${pinned(short)}/api/v3/userDataStream`, { method: 'POST', headers: bearer(TOKENS.bot) });
    const { listenKey } = await r.json() as { listenKey: string };
    const c = await open(`${wsBase(short)}/@3.12.0/ws/${listenKey}?token=${TOKENS.bot}`);
    await until(async () => (await up.userData()).active === 1);
    const expired = JSON.parse(String((await nextMessage(c.ws, 3000)).data)) as { e: string; E: number; listenKey: string };
    assert.equal([expired.e, typeof expired.E, expired.listenKey], ['listenKeyExpired', 'number', listenKey]); // the old event's shape (user-data-stream.md @3c4a33d^)
    await until(async () => (await up.userData()).active === 0);
    const renew = await fetch(`${pinned(short)}/api/v3/userDataStream?listenKey=${listenKey}`, { method: 'PUT', headers: bearer(TOKENS.bot) });
    assert.is(renew.status, 400); // gone: a new key must be created
    c.ws.close();
  } finally {
    await short.close();
  }
});

test('plan and diff explain the bridge', async () => {
  const plan = await (await fetch(`${gw.url}/_gateway/plan?release=3.12.0&operation=${encodeURIComponent('stream <listenKey>')}`)).json() as { decision: string; plan: { bridge: { events: { client: unknown; expired: unknown } } } };
  assert.match(plan.decision, /^answered by the gateway itself \(2026\.01\.21 listen-key-stream: bridge listenKeys, feed\), holding ws-api userDataStream\.subscribe\.signature upstream/);
  assert.equal(plan.plan.bridge.events.client, '<event>');
  assert.equal(plan.plan.bridge.events.expired, { e: 'listenKeyExpired', E: '<eventTime>', listenKey: '<listenKey>' });
  const rest = await (await fetch(`${gw.url}/_gateway/plan?release=3.12.0&operation=${encodeURIComponent('POST /api/v3/userDataStream')}`)).json() as { decision: string };
  assert.match(rest.decision, /listen-key-create: bridge listenKeys, create/);
});

test('without a key: the three old calls answer 410 naming userDataStream.subscribe…; nothing reaches the stub', async () => {
  for (const method of ['POST', 'PUT', 'DELETE']) {
    const q = method === 'POST' ? '' : `?listenKey=${'a'.repeat(60)}`;
    const r = await fetch(`${pinned(keyless)}/api/v3/userDataStream${q}`, { method, headers: { ...bearer(TOKENS.bot), 'X-MBX-APIKEY': 'client-key' } });
    const body = await r.json() as { code: number; msg: string };
    assert.is(r.status, 410, method);
    assert.is(body.code, -1020);
    assert.match(body.msg, /use ws-api userDataStream\.subscribe\.signature \(or session\.logon, then userDataStream\.subscribe\)$/);
  }
  const s = await connect(`${wsBase(keyless)}/@3.12.0/ws/${'a'.repeat(60)}?token=${TOKENS.bot}`);
  assert.ok(isRefused(s) && s.status === 410, 'the listen-key stream is refused 410');
  const c = await open(`${wsBase(keyless)}/@3.12.0/ws-api/v3`, { headers: bearer(TOKENS.bot) });
  c.ws.send(JSON.stringify({ id: 'start', method: 'userDataStream.start', params: { apiKey: 'client-key' } }));
  const frame = JSON.parse(String((await nextMessage(c.ws)).data)) as { status: number; error: { code: number; msg: string } };
  assert.equal([frame.status, frame.error.code], [410, -1020]);
  assert.match(frame.error.msg, /use ws-api userDataStream\.subscribe\.signature|use userDataStream\.subscribe\.signature/);
  c.ws.close();
  assert.equal(await up.records(), []);
  assert.equal((await up.userData()).frames, []);
});

test('websocket-API userDataStream.start/ping/stop at 3.12.0 are answered by the gateway, never forwarded', async () => {
  const c = await open(`${wsBase(gw)}/@3.12.0/ws-api/v3`, { headers: bearer(TOKENS.bot) });
  const call = async (id: string, method: string, params: Record<string, unknown>) => {
    c.ws.send(JSON.stringify({ id, method, params }));
    return JSON.parse(String((await nextMessage(c.ws)).data));
  };
  const started = await call('s', 'userDataStream.start', {});
  assert.match(started.result.listenKey, /^[A-Za-z0-9]{60}$/);
  assert.equal(await call('p', 'userDataStream.ping', { listenKey: started.result.listenKey }), { id: 'p', status: 200, result: {} });
  assert.equal(await call('x', 'userDataStream.stop', { listenKey: started.result.listenKey }), { id: 'x', status: 200, result: {} });
  c.ws.close();
  assert.equal((await up.userData()).frames, []);
});

/**
 * The probe: /stream?streams=<200 made-up listen keys>, ten times, by a token without the
 * user-data right (403) and by one with it (400); the caller checks that nothing reached the upstream.
 */
async function probe(g: RunningGateway): Promise<void> {
  const names = Array.from({ length: 200 }, (_, i) => `${'k'.repeat(56)}${String(i).padStart(4, '0')}`).join('/');
  for (let i = 0; i < 10; i++) {
    const narrow = await connect(`${wsBase(g)}/@3.12.0/stream?streams=${names}&token=${TOKENS.narrow}`);
    assert.ok(isRefused(narrow) && narrow.status === 403, 'a token without the right: 403');
    const mine = await connect(`${wsBase(g)}/@3.12.0/stream?streams=${names}&token=${TOKENS.bot}`);
    assert.ok(isRefused(mine) && mine.status === 400, 'made-up keys with the right: 400');
  }
}

test('bounds: the made-up listen-key probe, a token without the right, 1 000 creations by one token', async () => {
  await probe(gw); // made-up keys by a token with the right: unknown
  const narrow = await fetch(`${pinned(gw)}/api/v3/userDataStream`, { method: 'POST', headers: bearer(TOKENS.narrow) });
  assert.is(narrow.status, 403);
  assert.match(((await narrow.json()) as { msg: string }).msg, /user-data right/);
  const c = await open(`${wsBase(gw)}/@2026.08.21/ws-api/v3`, { headers: bearer(TOKENS.narrow) });
  c.ws.send(JSON.stringify({ id: 1, method: 'userDataStream.subscribe.signature', params: {} }));
  assert.is(JSON.parse(String((await nextMessage(c.ws)).data)).status, 403);
  c.ws.close();
  // 1 000 creations by one token: at most the per-token bound of keys, one upstream subscription at most, still answering.
  const keys = new Set<string>();
  for (let i = 0; i < 1000; i++) {
    const r = await fetch(`${pinned(gw)}/api/v3/userDataStream`, { method: 'POST', headers: bearer(TOKENS.other) });
    const body = await r.json() as { listenKey: string };
    if (i === 0) assert.is(r.status, 200, JSON.stringify(body));
    keys.add(body.listenKey);
  }
  assert.is(keys.size, 10); // GATEWAY_USER_DATA_KEYS_PER_TOKEN's default; then the newest is answered again
  const streams = await Promise.all([...keys].map((k) => open(`${wsBase(gw)}/@3.12.0/ws/${k}?token=${TOKENS.other}`)));
  await until(async () => (await up.userData()).active === 1);
  const health = await fetch(`${gw.url}/_gateway/health`);
  assert.is(health.status, 200); // still answering
  for (const s of streams) s.ws.close();
  await until(async () => (await up.userData()).active === 0);
  assert.equal(await up.records(), []);
});

test('an upstream still at 3.12.0 (keep-alive path): the probe gets 403 without the right, 400 past the per-connection bound; nothing upstream', async () => {
  const old = await startGateway(readConfig(args(['--upstream-release', 'exchange=3.12.0']), { EXCHANGE_API_KEY: HMAC_KEY, EXCHANGE_API_SECRET: HMAC_SECRET }), { logger: createLogger('silent') });
  try {
    await probe(old); // here 400 because 200 keys are past the per-connection bound
    await sleep(100);
    assert.equal(await up.records(), []);
  } finally {
    await old.close();
  }
});

test('200 connect-and-drop cycles bring upstream subscriptions back to 0 within seconds; no secret or token in any log line', async () => {
  const r = await fetch(`${pinned(gw)}/api/v3/userDataStream`, { method: 'POST', headers: bearer(TOKENS.bot) });
  const { listenKey } = await r.json() as { listenKey: string };
  for (let i = 0; i < 200; i++) {
    const c = await open(`${wsBase(gw)}/@3.12.0/ws/${listenKey}?token=${TOKENS.bot}`);
    c.ws.terminate();
  }
  const t0 = Date.now();
  await until(async () => (await up.userData()).active === 0, 5000);
  assert.ok(Date.now() - t0 < 5000, 'back to 0 within seconds');
  const { frames } = await up.userData();
  assert.ok(frames.length <= 20, `upstream calls bounded (${frames.length} for 200 cycles)`);
  const text = logs.join('\n');
  for (const secret of [HMAC_SECRET, ...Object.values(TOKENS), listenKey]) assert.not.ok(text.includes(secret), 'a secret, token or listen key in the log');
});

test.run();
