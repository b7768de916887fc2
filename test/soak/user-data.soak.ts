// User data under churn (docs/user-data.md; npm test runs the short versions in
// test/user-data/listen-key-bridge.test.ts): 2 000 listen-key stream connections opened and dropped by
// 20 clients at once while events flow, and 5 000 creations by one token. The upstream (its own
// process, speaking only today's mechanism) never holds more than one subscription, is back to none
// within seconds, and the gateway's own upstream calls stay a handful.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { readConfig } from '../../src/config.js';
import { hashLine } from '../../src/gateway/client-auth/tokens.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { open, sleep } from '../websocket/ws-upstream.js';
import { dir, HMAC_KEY, HMAC_SECRET, UPSTREAM_KEYS } from '../signing/support.js';

const test = suite('user data under churn (soak)');
const TOKEN = 'gwt_soak-user-data-0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d';
const tokensFile = join(dir, 'user-data-soak-tokens.yaml');
writeFileSync(tokensFile, `tokens:\n  - name: soak\n    hash: ${hashLine(TOKEN)}\n    rights: [user-data]\n    allow: [GET /api/v3/ping]\n`);

let up: Upstream;
let gw: RunningGateway;
test.before(async () => {
  up = await startUpstream(UPSTREAM_KEYS, undefined, { ownProcess: true });
  const ws = up.url.replace(/^http/, 'ws');
  const args = ['--port', '0', '--release', '3.12.0', '--tokens-file', tokensFile, '--upstream', `exchange=${up.url}`,
    '--upstream', `exchange.wsApi=${ws}`, '--upstream', `exchange.streams=${ws}`];
  gw = await startGateway(readConfig(args, { EXCHANGE_API_KEY: HMAC_KEY, EXCHANGE_API_SECRET: HMAC_SECRET }), { logger: createLogger('silent') });
});
test.after(async () => {
  await gw.close();
  await up.stop();
});

const auth = { Authorization: `Bearer ${TOKEN}` };

test('2 000 connect-and-drop cycles by 20 clients while events flow: at most one upstream subscription, none within seconds after', async () => {
  const { listenKey } = await (await fetch(`${gw.url}/api/v3/userDataStream`, { method: 'POST', headers: auth })).json() as { listenKey: string };
  const url = `${gw.url.replace(/^http/, 'ws')}/ws/${listenKey}?token=${TOKEN}`;
  let peak = 0;
  let flowing = true;
  const events = (async () => {
    while (flowing) {
      const n = await up.emit({ e: 'balanceUpdate', E: Date.now(), a: 'BTC', d: '1.00000000', T: Date.now() });
      peak = Math.max(peak, n);
      await sleep(20);
    }
  })();
  await Promise.all(Array.from({ length: 20 }, async () => {
    for (let i = 0; i < 100; i++) {
      const c = await open(url);
      if (i % 2) c.ws.terminate();
      else c.ws.close();
    }
  }));
  flowing = false;
  await events;
  assert.ok(peak <= 1, `at most one upstream subscription (saw ${peak})`);
  const t0 = Date.now();
  while ((await up.userData()).active !== 0) {
    assert.ok(Date.now() - t0 < 5000, 'upstream subscriptions back to 0 within 5 s');
    await sleep(50);
  }
  const { frames } = await up.userData();
  assert.ok(frames.length <= 60, `${frames.length} upstream calls for 2 000 cycles`);
});

test('5 000 creations by one token: the per-token bound of keys, the gateway still answering', async () => {
  const keys = new Set<string>();
  for (let i = 0; i < 5000; i++) {
    const r = await fetch(`${gw.url}/api/v3/userDataStream`, { method: 'POST', headers: auth });
    keys.add(((await r.json()) as { listenKey: string }).listenKey);
  }
  assert.ok(keys.size <= 10, `${keys.size} keys`);
  assert.is((await fetch(`${gw.url}/_gateway/health`)).status, 200);
  assert.equal((await up.records()).filter((r) => r.url.startsWith('/api/v3/userDataStream')), []);
});

test.run();
