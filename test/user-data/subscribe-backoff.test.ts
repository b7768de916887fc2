// The gateway's one upstream user-data subscription against a hostile exchange (issue 46 findings 3
// and 7): a 429 carrying retryAfter is never answered by a try before that time, refusals in a row
// are spaced out further, and a subscribe answer that never comes is given up and tried again.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { readConfig } from '../../src/config.js';
import { hashLine } from '../../src/gateway/client-auth/tokens.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { closed, open, sleep } from '../websocket/ws-upstream.js';
import { dir, HMAC_KEY, HMAC_SECRET, UPSTREAM_KEYS } from '../signing/support.js';

const test = suite('user data: subscribing against a hostile exchange');
const TOKEN = 'gwt_backoff-9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f';
const tokensFile = join(dir, 'backoff-tokens.yaml');
writeFileSync(tokensFile, `tokens:\n  - name: bot\n    hash: ${hashLine(TOKEN)}\n    rights: [user-data]\n    allow: [ 'GET /api/v3/*' ]\n`);
let up: Upstream;
let gw: RunningGateway;
const logs: string[] = [];

test.before(async () => {
  up = await startUpstream(UPSTREAM_KEYS);
  const ws = up.url.replace(/^http/, 'ws');
  const args = ['--port', '0', '--release', '3.12.0,2026.08.21', '--default-release', '3.12.0', '--tokens-file', tokensFile, '--upstream', `exchange=${up.url}`,
    '--upstream', `exchange.wsApi=${ws}`, '--upstream', `exchange.streams=${ws}`, '--user-data-linger', '200', '--timeout', '2000', '--accept-grace', '0'];
  gw = await startGateway(readConfig(args, { EXCHANGE_API_KEY: HMAC_KEY, EXCHANGE_API_SECRET: HMAC_SECRET }), { logger: createLogger('debug', (l) => logs.push(l)) });
});
test.after(async () => {
  await gw.close();
  await up.stop();
});

const subscribes = async () => (await up.userData()).frames.filter((f) => f.method === 'userDataStream.subscribe.signature').length;
async function until(f: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > end) throw new Error(`condition not reached in ${ms} ms; ${await subscribes()} subscribe frames; log: ${logs.filter((l) => l.includes('user data')).slice(-5).join(' | ')}`);
    await sleep(50);
  }
}

async function listen(): Promise<Awaited<ReturnType<typeof open>>> {
  const created = await fetch(`${gw.url}/@3.12.0/api/v3/userDataStream`, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}` } });
  const { listenKey } = await created.json() as { listenKey: string };
  return open(`${gw.url.replace(/^http/, 'ws')}/@3.12.0/ws/${listenKey}?token=${TOKEN}`);
}

test('two 429s with retryAfter 3 s: each next try waits for it (the backoff alone would try after ~1 s, then ~2 s), the third subscribes', async () => {
  await up.reset();
  await fetch(`${up.url}/__user-data/refuse`, { method: 'POST', body: JSON.stringify({ times: 2, status: 429, code: -1003, retryAfterMs: 3000 }) });
  const started = Date.now();
  const c = await listen();
  await until(async () => (await up.userData()).active === 1, 15_000);
  assert.is(await subscribes(), 3, 'two refused, the third subscribed');
  assert.ok(Date.now() - started >= 2 * 2900, `subscribed ${Date.now() - started} ms after the first try`);
  assert.ok(logs.some((l) => /refused upstream: 429 -1003 .*; not before /.test(l)));
  c.ws.close();
  await closed(c.ws);
  await until(async () => (await up.userData()).active === 0, 5000);
});

test('a subscribe answer that never comes is given up after --timeout and tried again', async () => {
  await up.reset();
  await fetch(`${up.url}/__user-data/refuse`, { method: 'POST', body: JSON.stringify({ times: 1, silent: true }) });
  const c = await listen();
  await until(async () => (await up.userData()).active === 1, 15_000);
  assert.is(await subscribes(), 2);
  assert.ok(logs.some((l) => l.includes('no answer to userDataStream.subscribe.signature within 2000 ms')));
  c.ws.close();
  await closed(c.ws);
});

test.run();
