// Issue 22 finding 7: websocket-API request frames count against the same limits as REST. Each
// method's weight is in ws-api.yaml (lint rejects a malformed one); a frame over budget is answered
// in the exchange's shape (status 429, -1003) with its id and never forwarded; order-placing methods
// count against ORDERS (service.yaml counts "ws-api <method>").
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { readConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';
import { ROOT, startUpstream, type Upstream } from '../support/processes.js';
import { runTool } from '../support/tools.js';
import { tempDir } from '../support/temp.js';
import { nextMessage, open, sleep, startWsUpstream, wsUrl, type WsUpstream } from '../websocket/ws-upstream.js';
import { catalogueWithLimits } from './small-limits.js';

const test = suite('rate limits: websocket-API frames weighed');
let rest: Upstream;
let ws: WsUpstream;
const gateways: RunningGateway[] = [];

test.before(async () => { [rest, ws] = await Promise.all([startUpstream(), startWsUpstream()]); });
test.before.each(async () => { ws.reset(); await rest.reset(); });
test.after(async () => {
  for (const g of gateways) await g.close();
  await ws.stop();
  await rest.stop();
});

async function gateway(catalogue?: string): Promise<RunningGateway> {
  const args = ['--port', '0', '--release', '3.12.0', '--upstream', `exchange=${rest.url}`, '--upstream', `exchange.wsApi=${ws.url}`, ...(catalogue ? ['--catalogue', catalogue] : [])];
  const g = await startGateway(readConfig(args, {}), { logger: createLogger('silent') });
  gateways.push(g);
  return g;
}

/** Send frames one by one on one websocket-API connection; the answers in order, and what the upstream received. */
async function frames(g: RunningGateway, list: { method: string; params: Record<string, unknown> }[]) {
  const c = await open(`${wsUrl(g)}/ws-api/v3`);
  const conn = await ws.nextConnection();
  const answers: { id: number; status: number; error?: { code: number; msg: string } }[] = [];
  for (const [i, f] of list.entries()) {
    c.ws.send(JSON.stringify({ id: i, ...f }));
    answers.push(JSON.parse((await nextMessage(c.ws)).data.toString()));
  }
  await sleep(20);
  c.ws.close();
  return { answers, forwarded: conn.received.length };
}

const restDepth = async (g: RunningGateway, limit: number) => (await fetch(`${g.url}/api/v3/depth?symbol=BTCUSDT&limit=${limit}`)).status;

test('30 depth frames of weight 250 against the 6 000 budget: 24 forwarded, 6 answered 429 -1003; REST then finds the budget spent', async () => {
  const g = await gateway();
  const { answers, forwarded } = await frames(g, Array.from({ length: 30 }, () => ({ method: 'depth', params: { symbol: 'BTCUSDT', limit: 5000 } })));
  assert.is(forwarded, 24, '6000 / 250');
  assert.equal(answers.map((a) => a.status), [...Array(24).fill(200), ...Array(6).fill(429)]);
  const refused = answers[24];
  assert.is(refused.id, 24);
  assert.is(refused.error!.code, -1003);
  assert.match(refused.error!.msg, /this request \(250\) would exceed the exchange's REQUEST_WEIGHT limit of 6000 per 1m .*: 6000 used/);
  assert.is(await restDepth(g, 100), 429, 'the same counter as REST');
  assert.is((await rest.records()).length, 0, 'nothing reached the REST upstream');
});

test('REST spends first, frames find the rest: depth limit=5000 over REST (250 of 300), then frames of 250 refused and of 5 forwarded', async () => {
  const g = await gateway(catalogueWithLimits({ weight: 300 }));
  assert.is(await restDepth(g, 5000), 200);
  const { answers, forwarded } = await frames(g, [
    { method: 'depth', params: { symbol: 'BTCUSDT', limit: 5000 } },
    ...Array.from({ length: 11 }, () => ({ method: 'depth', params: { symbol: 'BTCUSDT', limit: 100 } })),
  ]);
  assert.equal(answers.map((a) => a.status), [429, ...Array(10).fill(200), 429]);
  assert.is(forwarded, 10);
  assert.is(await restDepth(g, 100), 429);
});

test('order.place frames count against ORDERS per account (the apiKey in params); a test order does not', async () => {
  const g = await gateway(catalogueWithLimits({ weight: 100_000, orders: 3 }));
  const order = (apiKey: string) => ({ method: 'order.place', params: { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '1', apiKey, timestamp: 1700000000000, signature: 'abc' } });
  const testOrder = { method: 'order.test', params: { ...order('k1').params } };
  const { answers, forwarded } = await frames(g, [order('k1'), order('k1'), testOrder, order('k1'), order('k1'), order('k2')]);
  assert.equal(answers.map((a) => a.status), [200, 200, 200, 200, 429, 200]);
  assert.match(answers[4].error!.msg, /ORDERS limit of 3 per 10s \(counted per account \(API key\)\)/);
  assert.is(forwarded, 5);
});

test('lint rejects a malformed websocket-API weight, naming ws-api.yaml and the line', async () => {
  const dir = tempDir('cat-ws-weight-');
  cpSync(join(ROOT, 'catalogue'), dir, { recursive: true });
  const file = join(dir, 'exchange/ws-api.yaml');
  const text = readFileSync(file, 'utf8');
  const broken = text
    .replace(/(  - name: time\n(?: {4}.*\n)*? {4})weight: \{[^\n]*\}/, '$1weight: -5')
    .replace(/(  - name: depth\n(?: {4}.*\n)*? {4}weight: \{ rules: \[\{ parameter: )limit/, '$1depthLimit');
  assert.is.not(broken, text);
  writeFileSync(file, broken);
  const lint = runTool('catalogue', ['lint', '--catalogue', dir]);
  assert.is(lint.status, 1, 'lint exits with an error');
  const out = lint.stdout;
  assert.match(out, /ws-api\.yaml:\d+: .*weight/);
  assert.match(out, /websocket method depth: weight rule names parameter "depthLimit", which the endpoint does not have/);
});

test.run();
