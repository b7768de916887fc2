// The listen-key bridge under --workers 2 (issue 46 finding 1 and its acceptance): listen keys and the
// upstream subscription live in the primary, so a key made through one worker renews, streams and
// closes through any other; the account has one subscription upstream; paused readers are closed
// 1008 with the workers' memory bounded; a token removed from the tokens file loses its listen-key
// stream within a second of SIGHUP. Each call below goes on a new connection, so the kernel hands it
// to either worker.
// test-runner: own process
import { request } from 'node:http';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { writeTokens } from './tokens-file.js';
import { childPids, startGatewayProcess, startUpstream, type Proc, type Upstream } from '../support/processes.js';
import { rssBytes } from '../support/rss.js';
import { closed, nextMessage, open, sleep, type Frame, type Opened } from '../websocket/ws-upstream.js';
import { HMAC_KEY, HMAC_SECRET, UPSTREAM_KEYS } from '../signing/support.js';
import { until } from '../support/until.js';

const test = suite('user data under --workers 2: one store and one subscription in the primary');

const TOKENS = {
  bot: 'gwt_bot-5c1e8a7b9d3f2e4a6b8c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f',
  gone: 'gwt_gone-9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f',
};
const entry = (name: keyof typeof TOKENS) => ({ name, token: TOKENS[name], rights: ['user-data'], allow: ["'GET /api/v3/*'"] });
const tokensFile = writeTokens('workers-tokens.yaml', [entry('bot'), entry('gone')]);

let up: Upstream;
let gw: Proc & { url: string };

test.before(async () => {
  up = await startUpstream(UPSTREAM_KEYS);
  const ws = up.url.replace(/^http/, 'ws');
  gw = await startGatewayProcess(['--workers', '2', '--release', '3.12.0,2026.08.21', '--default-release', '3.12.0', '--tokens-file', tokensFile,
    '--upstream', `exchange=${up.url}`, '--upstream', `exchange.wsApi=${ws}`, '--upstream', `exchange.streams=${ws}`,
    '--user-data-linger', '200', '--ws-max-buffered', '65536'], { EXCHANGE_API_KEY: HMAC_KEY, EXCHANGE_API_SECRET: HMAC_SECRET });
});
test.after(async () => {
  await gw?.stop();
  await up?.stop();
});

/** One call on a connection of its own (no keep-alive): whichever worker the kernel picks answers it. */
function call(method: string, path: string, token: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${gw.url}/@3.12.0${path}`, { method, agent: false, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => { text += d.toString(); });
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Each client's first event. Each stream joins the primary's one subscription once its worker has
 * passed it on (the first one made it), so a stream that joined later misses the events before it
 * (a loaded run's third stream got none from a single event): events are emitted until every client
 * has had one, each taken by exactly one upstream subscription (`what`).
 */
async function emitUntilAll(clients: Opened[], emit: (n: number) => Promise<number>, what: string): Promise<Frame[]> {
  let allGot = false;
  const got = Promise.all(clients.map((c) => nextMessage(c.ws, 10_000))).finally(() => { allGot = true; });
  for (let n = 0; !allGot && n < 50; n++) {
    assert.is(await emit(n), 1, what);
    await sleep(100);
  }
  return got;
}

const streamUrl = (key: string, token: string) => `${gw.url.replace(/^http/, 'ws')}/@3.12.0/ws/${key}?token=${token}`;
/** The resident memory of the gateway's workers, KiB. */
const workersRss = () => childPids(gw.child.pid!).reduce((n, pid) => n + rssBytes(pid) / 1024, 0);

test('10 listen keys made through either worker renew and stream 10/10 on one upstream subscription', async () => {
  const keys: string[] = [];
  for (let i = 0; i < 10; i++) {
    // One key per token at most is the exchange's rule; a key per call needs a bound of 10 keys, the default.
    const made = await call('POST', '/api/v3/userDataStream', TOKENS.bot);
    assert.is(made.status, 200);
    keys.push(made.body.listenKey as string);
  }
  assert.is(new Set(keys).size, 10, 'ten different keys');
  const renewed = await Promise.all(keys.map((k) => call('PUT', `/api/v3/userDataStream?listenKey=${k}`, TOKENS.bot)));
  assert.equal(renewed.map((r) => r.status), Array(10).fill(200), JSON.stringify(renewed.map((r) => r.body)));
  const clients = await Promise.all(keys.map((k) => open(streamUrl(k, TOKENS.bot))));
  await until(async () => (await up.userData()).active === 1);
  const frames = await emitUntilAll(clients, (n) => up.emit({ e: 'balanceUpdate', E: 1573200697110 + n, a: 'BTC', d: '100.00000000', T: 1573200697068 }), 'one upstream subscription for ten streams on two workers');
  assert.equal(frames.map((f) => JSON.parse(f.data.toString()).e), Array(10).fill('balanceUpdate'));
  for (const c of clients) c.ws.close();
  const shut = await Promise.all(keys.map((k) => call('DELETE', `/api/v3/userDataStream?listenKey=${k}`, TOKENS.bot)));
  assert.equal(shut.map((r) => r.status), Array(10).fill(200));
  await until(async () => (await up.userData()).active === 0);
});

test('6 paused readers across the workers are closed 1008, the workers\' memory stays bounded, the gateway keeps serving', async () => {
  const before = workersRss();
  const made = await call('POST', '/api/v3/userDataStream', TOKENS.bot);
  const key = made.body.listenKey as string;
  const clients = await Promise.all(Array.from({ length: 6 }, () => open(streamUrl(key, TOKENS.bot))));
  await until(async () => (await up.userData()).active === 1);
  const ends = clients.map((c) => closed(c.ws));
  for (const c of clients) (c.ws as unknown as { _socket: { pause(): void } })._socket.pause(); // stopped reading
  const slow = () => gw.output().split('closed with 1008').length - 1;
  const big = { e: 'balanceUpdate', E: 1573200697110, a: 'BTC', d: 'x'.repeat(256 * 1024), T: 1573200697068 };
  let peak = before;
  for (let i = 0; i < 200 && slow() < 6; i++) {
    await up.emit(big);
    if (i % 20 === 19) {
      peak = Math.max(peak, workersRss());
      await sleep(100); // let the workers take what was sent
    }
  }
  await until(() => slow() >= 6, 20_000); // a loaded machine takes a while to fill the buffers
  peak = Math.max(peak, workersRss());
  for (const c of clients) (c.ws as unknown as { _socket: { resume(): void } })._socket.resume(); // now read the close
  const codes = (await Promise.all(ends)).map((e) => e.code);
  assert.equal(codes, Array(6).fill(1008));
  // 200 events of 256 KiB were 50 MiB per reader; held for six that would be 300 MiB.
  assert.ok(peak - before < 96 * 1024, `workers grew by ${Math.round((peak - before) / 1024)} MiB`);
  assert.is((await call('GET', '/api/v3/ping', TOKENS.bot)).status, 200);
  await call('DELETE', `/api/v3/userDataStream?listenKey=${key}`, TOKENS.bot);
});

test('a token removed from the tokens file loses its listen-key stream within 1 s of SIGHUP (1008), on whichever worker it was', async () => {
  const made = await call('POST', '/api/v3/userDataStream', TOKENS.gone);
  const key = made.body.listenKey as string;
  const kept = await call('POST', '/api/v3/userDataStream', TOKENS.bot);
  const c = await open(streamUrl(key, TOKENS.gone));
  const other = await open(streamUrl(kept.body.listenKey as string, TOKENS.bot));
  const end = closed(c.ws);
  writeTokens('workers-tokens.yaml', [entry('bot')]);
  const sent = performance.now();
  gw.child.kill('SIGHUP');
  const { code, reason } = await end;
  const ms = performance.now() - sent;
  assert.is(code, 1008);
  assert.is(reason, 'client token revoked');
  assert.ok(ms < 1000, `closed ${ms.toFixed(0)} ms after SIGHUP`);
  assert.is(other.ws.readyState, other.ws.OPEN, 'the other token keeps its stream');
  // Its key is forgotten by the one store: no worker renews it.
  assert.is((await call('PUT', `/api/v3/userDataStream?listenKey=${key}`, TOKENS.bot)).status, 400);
  other.ws.close();
});

test('margin listen keys under --workers: made, renewed, streamed and closed through either worker, one account subscription (issue 48 item 3)', async () => {
  const keys: string[] = [];
  for (let i = 0; i < 4; i++) {
    const made = await call('POST', '/sapi/v1/userDataStream', TOKENS.bot);
    assert.is(made.status, 200, JSON.stringify(made.body));
    keys.push(made.body.listenKey as string);
  }
  assert.is(new Set(keys).size, 4);
  const renewed = await Promise.all(keys.map((k) => call('PUT', `/sapi/v1/userDataStream?listenKey=${k}`, TOKENS.bot)));
  assert.equal(renewed.map((r) => r.status), Array(4).fill(200));
  // A spot call does not know a margin key, whichever worker takes it.
  assert.is((await call('PUT', `/api/v3/userDataStream?listenKey=${keys[0]}`, TOKENS.bot)).status, 400);
  const clients = await Promise.all(keys.map((k) => open(streamUrl(k, TOKENS.bot))));
  // The margin account's own subscription (`active` also counts a spot one an earlier test's linger keeps).
  await until(async () => (await up.userData()).margin.length === 1);
  const got = await emitUntilAll(clients, (n) => up.emit({ e: 'outboundAccountPosition', E: n + 1, u: 1, B: [{ a: 'BNB', f: '1', l: '0' }] }, 'margin'), 'one margin subscription for four streams on two workers');
  assert.equal(got.map((f) => JSON.parse(f.data.toString()).e), Array(4).fill('outboundAccountPosition'));
  const ends = clients.map((c) => closed(c.ws));
  const shut = await Promise.all(keys.map((k) => call('DELETE', `/sapi/v1/userDataStream?listenKey=${k}`, TOKENS.bot)));
  assert.equal(shut.map((r) => r.status), Array(4).fill(200));
  assert.equal((await Promise.all(ends)).map((e) => e.code), Array(4).fill(1000));
  await until(async () => (await up.userData()).active === 0);
});

test.run();
