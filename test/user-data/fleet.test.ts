// The listen-key bridge across a fleet (--fleet redis://…, a real redis-server): a listen key made
// through one replica renews, streams and closes through another; a key closed on one replica ends its
// streams on the other (1000), one not renewed expires there with the old expiry event, and a revoked
// token's keys are gone from every replica.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { readConfig } from '../../src/config.js';
import { writeTokens } from './tokens-file.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { closed, connect, isRefused, nextMessage, open, sleep } from '../websocket/ws-upstream.js';
import { HMAC_KEY, HMAC_SECRET, UPSTREAM_KEYS } from '../signing/support.js';
import { startRedis, type RedisServer } from '../rate-limit/redis-server.js';

const test = suite('user data across a fleet: listen keys in Redis');

const BOT = 'gwt_bot-7c1e8a7b9d3f2e4a6b8c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f';
const tokensFile = writeTokens('fleet-user-data-tokens.yaml', [{ name: 'bot', token: BOT, rights: ['user-data'], allow: ["'GET /api/v3/*'"] }]);

let up: Upstream;
let redis: RedisServer;
let a: RunningGateway;
let b: RunningGateway;

const start = () => {
  const ws = up.url.replace(/^http/, 'ws');
  const args = ['--port', '0', '--release', '3.12.0,2026.08.21', '--default-release', '3.12.0', '--tokens-file', tokensFile, '--upstream', `exchange=${up.url}`,
    '--upstream', `exchange.wsApi=${ws}`, '--upstream', `exchange.streams=${ws}`, '--user-data-linger', '100', '--fleet', redis.url];
  return startGateway(readConfig(args, { EXCHANGE_API_KEY: HMAC_KEY, EXCHANGE_API_SECRET: HMAC_SECRET }), { logger: createLogger('silent'), websocket: { userDataExpiresAfterMs: 1500, userDataPollMs: 100 } });
};

test.before(async () => {
  [up, redis] = await Promise.all([startUpstream(UPSTREAM_KEYS), startRedis()]);
  [a, b] = await Promise.all([start(), start()]);
});
test.after(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await up?.stop();
  await redis?.kill();
});

const call = async (g: RunningGateway, method: string, query = '') => {
  const r = await fetch(`${g.url}/@3.12.0/api/v3/userDataStream${query}`, { method, headers: { Authorization: `Bearer ${BOT}` } });
  return { status: r.status, body: await r.json() as Record<string, unknown> };
};
const stream = (g: RunningGateway, key: string) => open(`${g.url.replace(/^http/, 'ws')}/@3.12.0/ws/${key}?token=${BOT}`);

test('made on one replica, renewed and streamed on the other, closed on the first: the other\'s stream ends 1000', async () => {
  const made = await call(a, 'POST');
  const key = made.body.listenKey as string;
  assert.match(key, /^[A-Za-z0-9]{60}$/);
  assert.is((await call(b, 'PUT', `?listenKey=${key}`)).status, 200);
  const c = await stream(b, key);
  const got = nextMessage(c.ws);
  for (let i = 0; i < 100 && (await up.userData()).active < 1; i++) await sleep(20);
  await up.emit({ e: 'balanceUpdate', E: 1, a: 'BTC', d: '1.0', T: 1 });
  assert.is(JSON.parse((await got).data.toString()).e, 'balanceUpdate');
  const end = closed(c.ws);
  assert.is((await call(a, 'DELETE', `?listenKey=${key}`)).status, 200);
  assert.equal(await end, { code: 1000, reason: 'listen key closed' });
  assert.is((await call(b, 'PUT', `?listenKey=${key}`)).status, 400, 'closed for every replica');
});

test('a key not renewed expires on every replica: the stream on the other gets listenKeyExpired', async () => {
  const key = (await call(a, 'POST')).body.listenKey as string;
  const c = await stream(b, key);
  const event = JSON.parse((await nextMessage(c.ws, 5000)).data.toString()) as Record<string, unknown>;
  assert.is(event.e, 'listenKeyExpired');
  assert.is(event.listenKey, key);
  assert.is((await call(a, 'PUT', `?listenKey=${key}`)).status, 400);
  c.ws.close();
});

test('a margin listen key made on one replica renews and streams its account\'s events on the other; a spot call does not know it', async () => {
  const margin = async (g: RunningGateway, method: string, query = '') => {
    const r = await fetch(`${g.url}/@3.12.0/sapi/v1/userDataStream${query}`, { method, headers: { Authorization: `Bearer ${BOT}` } });
    return { status: r.status, body: await r.json() as Record<string, unknown> };
  };
  const made = await margin(a, 'POST');
  assert.is(made.status, 200, JSON.stringify(made.body));
  const key = made.body.listenKey as string;
  assert.is((await margin(b, 'PUT', `?listenKey=${key}`)).status, 200);
  assert.is((await call(b, 'PUT', `?listenKey=${key}`)).status, 400, 'a margin key is unknown to the spot calls');
  const c = await stream(b, key);
  const got = nextMessage(c.ws);
  let sent = 0; // until the account's subscription is made upstream
  for (let i = 0; i < 150 && !(sent = await up.emit({ e: 'outboundAccountPosition', E: 1, u: 1, B: [] }, 'margin')); i++) await sleep(20);
  assert.is(sent, 1);
  assert.is(JSON.parse((await got).data.toString()).e, 'outboundAccountPosition');
  const end = closed(c.ws);
  assert.is((await margin(a, 'DELETE', `?listenKey=${key}`)).status, 200);
  assert.is((await end).code, 1000);
});

test('a made-up key is refused on every replica, and nothing is opened upstream for it', async () => {
  for (let i = 0; i < 100 && (await up.userData()).active > 0; i++) await sleep(20); // the last test's subscription has ended
  await up.reset();
  const made = 'A'.repeat(60);
  assert.is((await call(b, 'PUT', `?listenKey=${made}`)).status, 400);
  const c = await connect(`${b.url.replace(/^http/, 'ws')}/@3.12.0/ws/${made}?token=${BOT}`);
  assert.ok(isRefused(c) && c.status === 400, JSON.stringify(isRefused(c) ? c.status : 'opened'));
  assert.is((await up.userData()).frames.length, 0);
});

test.run();
