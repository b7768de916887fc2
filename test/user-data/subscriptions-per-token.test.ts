// User-data subscriptions a client token makes with the gateway's key (issue 46 finding 10: one
// token's subscribe frames opened 130 live subscriptions with the gateway's key): at most
// --user-data-subscriptions-per-token live at once, all its connections together; past it the gateway
// answers the frame itself, naming the bound and the setting, and nothing goes upstream. An
// unsubscribe or a closed connection gives the place back. Against the exchange stand-in.
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type WebSocket from 'ws';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { readConfig } from '../../src/config.js';
import { hashLine } from '../../src/gateway/client-auth/tokens.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { closed, nextMessage, open, sleep } from '../websocket/ws-upstream.js';
import { dir, HMAC_KEY, HMAC_SECRET, UPSTREAM_KEYS } from '../signing/support.js';

const test = suite('user data: subscriptions with the gateway\'s key, bounded per token');

const TOKENS = {
  bot: 'gwt_sbot-3c1e8a7b9d3f2e4a6b8c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f',
  other: 'gwt_sother-a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6',
};
const tokensFile = join(dir, 'subscriptions-per-token-tokens.yaml');
writeFileSync(tokensFile, `tokens:\n${Object.entries(TOKENS).map(([name, t]) => `  - name: ${name}\n    hash: ${hashLine(t)}\n    rights: [user-data]\n    allow:\n      - '* /**'\n      - ws: '*'\n`).join('')}`);

const BOUND = 2;
let up: Upstream;
let gw: RunningGateway;

test.before(async () => {
  up = await startUpstream(UPSTREAM_KEYS);
  const ws = up.url.replace(/^http/, 'ws');
  const args = ['--port', '0', '--release', '2026.08.21', '--tokens-file', tokensFile, '--upstream', `exchange=${up.url}`, '--upstream', `exchange.wsApi=${ws}`, '--accept-grace', '0'];
  // The bound as a variable: a gateway without the setting ignores it, and then shows the finding.
  const env = { EXCHANGE_API_KEY: HMAC_KEY, EXCHANGE_API_SECRET: HMAC_SECRET, GATEWAY_USER_DATA_SUBSCRIPTIONS_PER_TOKEN: String(BOUND) };
  gw = await startGateway(readConfig(args, env), { logger: createLogger('silent') });
});
test.after(async () => {
  await gw.close();
  await up.stop();
});

interface Answer { id: number | string; status: number; result?: { subscriptionId?: number }; error?: { code: number; msg: string } }

const connection = async (token: string) => (await open(`${gw.url.replace(/^http/, 'ws')}/ws-api/v3`, { headers: { Authorization: `Bearer ${token}` } })).ws;
const send = (ws: WebSocket, id: number | string, method: string, params: Record<string, unknown> = {}) => ws.send(JSON.stringify({ id, method, params }));
const answer = async (ws: WebSocket) => JSON.parse(String((await nextMessage(ws, 3000)).data)) as Answer;
const subscribeFrames = async () => (await up.userData()).frames.filter((f) => f.method.startsWith('userDataStream.subscribe')).length;

async function subscribe(ws: WebSocket, id: number | string, method = 'userDataStream.subscribe.signature', params: Record<string, unknown> = {}): Promise<Answer> {
  send(ws, id, method, params);
  return answer(ws);
}

test('one token: of 10 subscribe frames at once, the bound reach the upstream and the rest are refused naming it; an unsubscribe or a closed connection frees a place', async () => {
  await up.reset();
  const a = await connection(TOKENS.bot);
  for (let i = 1; i <= 10; i++) send(a, i, 'userDataStream.subscribe.signature');
  const answers: Answer[] = [];
  for (let i = 0; i < 10; i++) answers.push(await answer(a));
  const ok = answers.filter((x) => x.status === 200);
  const refused = answers.filter((x) => x.status !== 200);
  assert.is(ok.length, BOUND, JSON.stringify(answers));
  assert.is(await subscribeFrames(), BOUND, 'only the subscriptions within the bound were sent upstream');
  assert.is((await up.userData()).active, BOUND);
  assert.is(refused.length, 10 - BOUND);
  for (const r of refused) {
    assert.is(r.status, 429);
    assert.is(r.error?.code, -1003);
    assert.match(r.error!.msg, /Client token "bot" holds 2 user-data subscriptions made with the gateway's key, the most it may \(--user-data-subscriptions-per-token 2\)/);
    assert.match(r.error!.msg, /userDataStream\.unsubscribe/, 'the way out, named from the catalogue');
  }

  // The bound is the token's, over all its connections; another token has its own.
  const b = await connection(TOKENS.bot);
  assert.is((await subscribe(b, 'b1')).status, 429);
  const margin = await (await fetch(`${gw.url}/sapi/v1/userListenToken`, { method: 'POST', headers: { Authorization: `Bearer ${TOKENS.bot}` } })).json() as { token: string };
  assert.is((await subscribe(b, 'b2', 'userDataStream.subscribe.listenToken', { listenToken: margin.token })).status, 429, 'the listen-token subscription counts too');
  const o = await connection(TOKENS.other);
  assert.is((await subscribe(o, 'o1')).status, 200);
  // A frame signed by the client subscribes with the client's key: not the gateway's to count.
  const own = { apiKey: HMAC_KEY, timestamp: Date.now() };
  const signature = createHmac('sha256', HMAC_SECRET).update(`apiKey=${own.apiKey}&timestamp=${own.timestamp}`).digest('hex');
  assert.is((await subscribe(b, 'b-own', 'userDataStream.subscribe.signature', { ...own, signature })).status, 200);
  assert.is(await subscribeFrames(), BOUND + 2);

  // An unsubscribe answered by the upstream frees its place.
  send(a, 'u1', 'userDataStream.unsubscribe', { subscriptionId: ok[0].result!.subscriptionId });
  assert.is((await answer(a)).status, 200);
  assert.is((await subscribe(b, 'b3', 'userDataStream.subscribe.listenToken', { listenToken: margin.token })).status, 200);
  assert.is((await subscribe(b, 'b4')).status, 429);

  // A closed connection frees what it held.
  a.close();
  await closed(a);
  let again: Answer | undefined;
  for (let i = 0; i < 40 && again?.status !== 200; i++) {
    if (i) await sleep(25); // the gateway notices the close a moment later
    again = await subscribe(b, `b5-${i}`);
  }
  assert.is(again?.status, 200, JSON.stringify(again));
  assert.is((await up.userData()).active, BOUND + 2, 'bot holds the bound again, other one, and the client-signed one');
  b.close();
  o.close();
});

test.run();
