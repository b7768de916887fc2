// Frames the gateway writes again (signed in signing mode, carried up a version change, their answers
// carried back down) keep every value it does not change as the client (or the upstream) wrote it:
// ids that a double cannot hold (9007199254740993, 1e400, a 30-digit id), numbers such as 1.10,
// prices such as "0.10000000". A frame that gives a key twice is refused naming the key. Migrated
// REST answers keep their values the same way. The upstreams here never parse a frame: they keep the
// raw text, so what is asserted is the bytes.
import { createHmac } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { WebSocketServer } from 'ws';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { readConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';
import { ROOT } from '../support/processes.js';
import { tempDir } from '../support/temp.js';
import { cacheDirWithParses } from '../support/cache-dir.js';
import { nextMessage, open, sleep, type Opened } from './ws-upstream.js';

const test = suite('websocket frames keep the values the gateway does not change');
const KEY = 'fidelity-api-key-0123456789';
const SECRET = 'fidelity-secret-0123456789abcdefghijklmnop';
const SIGNING = { EXCHANGE_API_KEY: KEY, EXCHANGE_API_SECRET: SECRET };

/** A websocket API that keeps each frame's text and answers with the request's id as written. */
async function rawUpstream() {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const frames: string[] = [];
  let result = '{"ok":true}';
  wss.on('connection', (ws) => ws.on('message', (data) => {
    const raw = data.toString();
    frames.push(raw);
    const id = /"id":((?:"[^"]*"|[^,}]+))/.exec(raw)?.[1] ?? 'null';
    ws.send(`{"id":${id},"status":200,"result":${result}}`);
  }));
  return {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, frames,
    answer(text: string) { result = text; },
    async stop() { for (const c of wss.clients) c.terminate(); await new Promise<void>((r) => wss.close(() => r())); },
  };
}

/** A REST upstream that answers every request with one fixed text. */
async function fixedRest(body: string) {
  const server: Server = createServer((req, res) => { req.resume(); res.writeHead(200, { 'content-type': 'application/json' }); res.end(body); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, stop: () => new Promise<void>((r) => { server.close(() => r()); server.closeAllConnections(); }) };
}

let up: Awaited<ReturnType<typeof rawUpstream>>;
const gateways: RunningGateway[] = [];
const sockets: Opened[] = [];
async function gateway(releases: string, env: NodeJS.ProcessEnv = SIGNING, extra: string[] = [], rest = 'http://127.0.0.1:9'): Promise<RunningGateway> {
  const args = ['--port', '0', '--release', releases, '--upstream', `exchange=${rest}`, '--upstream', `exchange.wsApi=${up.url}`, '--upstream', `exchange.streams=${up.url}`, ...extra];
  const g = await startGateway(readConfig(args, env), { logger: createLogger('silent') });
  gateways.push(g);
  return g;
}
async function client(g: RunningGateway, path: string): Promise<Opened> {
  const c = await open(`${g.url.replace(/^http/, 'ws')}${path}`);
  sockets.push(c);
  return c;
}
async function send(c: Opened, text: string): Promise<string> {
  c.ws.send(text);
  return (await nextMessage(c.ws)).data.toString();
}

test.before(async () => { up = await rawUpstream(); });
test.before.each(() => { up.frames.length = 0; up.answer('{"ok":true}'); });
test.after(async () => {
  for (const c of sockets) c.ws.terminate();
  for (const g of gateways) await g.close();
  await up.stop();
});

const IDS = ['9007199254740993', '1e400', '123456789012345678901234567890', '"str"'];

test('signing mode: a signed frame keeps its id, numbers and prices as written, and is signed over them', async () => {
  const g = await gateway('3.12.0');
  const c = await client(g, '/ws-api/v3');
  for (const id of IDS) {
    up.frames.length = 0;
    const frame = `{"id":${id},"method":"order.place","params":{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","timeInForce":"GTC","price":"0.10000000","quantity":1.10,"strategyId":9007199254740993}}`;
    const answer = await send(c, frame);
    assert.ok(answer.startsWith(`{"id":${id},"status":200`), `${id}: the answer carries the id as sent: ${answer}`);
    const sent = up.frames[0];
    assert.ok(sent.startsWith(`{"id":${id},"method":"order.place","params":{`), `${id}: ${sent}`);
    for (const kept of ['"price":"0.10000000"', '"quantity":1.10', '"strategyId":9007199254740993']) assert.ok(sent.includes(kept), `${kept} in ${sent}`);
    // Signed over the values as they are sent (sorted by name, as the exchange's client does).
    const ts = /"timestamp":(\d+)/.exec(sent)![1];
    const payload = `apiKey=${KEY}&price=0.10000000&quantity=1.10&side=BUY&strategyId=9007199254740993&symbol=BTCUSDT&timeInForce=GTC&timestamp=${ts}&type=LIMIT`;
    assert.ok(sent.includes(`"signature":"${createHmac('sha256', SECRET).update(payload).digest('hex')}"`), `signature over ${payload}: ${sent}`);
  }
});

test('a refusal answers with the id as sent', async () => {
  const g = await gateway('3.12.0', {});
  const c = await client(g, '/ws-api/v3');
  const answer = await send(c, '{"id":9007199254740993,"method":"no.such.method"}');
  assert.ok(answer.startsWith('{"id":9007199254740993,"status":400'), answer);
  assert.is(up.frames.length, 0);
});

test('a version change (orderList.place at 3.5.1 → orderList.place.oco) keeps the values it does not change', async () => {
  const g = await gateway('3.5.1,3.12.0');
  const c = await client(g, '/@3.5.1/ws-api/v3');
  for (const id of IDS) {
    up.frames.length = 0;
    const frame = `{"id":${id},"method":"orderList.place","params":{"symbol":"BTCUSDT","side":"SELL","quantity":1.10,"price":"0.10000000","stopPrice":0.0500,"limitStrategyId":9007199254740993}}`;
    const answer = await send(c, frame);
    assert.ok(answer.startsWith(`{"id":${id},"status":200`), `${id}: ${answer}`);
    const sent = up.frames[0];
    assert.ok(sent.startsWith(`{"id":${id},"method":"orderList.place.oco","params":{`), `${id}: ${sent}`);
    for (const kept of ['"quantity":1.10', '"abovePrice":"0.10000000"', '"belowStopPrice":0.0500', '"aboveStrategyId":9007199254740993']) assert.ok(sent.includes(kept), `${kept} in ${sent}`);
  }
});

test('answers carried back down a version change keep the upstream\'s values', async () => {
  // The OCO change with an answer step (orderListId → listId), so the answer is read and written again.
  const dir = tempDir('gw-ws-fidelity-');
  cpSync(join(ROOT, 'catalogue'), dir, { recursive: true });
  const file = join(dir, 'exchange/changes.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace(/(      - transform: ocoToOrderListOco\n)/, '$1    answer:\n      - rename: { orderListId: listId }\n'));
  const g = await gateway('3.5.1,3.12.0', { ...SIGNING, GATEWAY_CACHE_DIR: cacheDirWithParses('gw-ws-fidelity-cache-') }, ['--catalogue', dir]);
  const c = await client(g, '/@3.5.1/ws-api/v3');
  up.answer('{"orderListId":123456789012345678901234567890,"price":"0.10000000","qty":1.10,"big":1e400,"orders":[{"orderId":9007199254740993}]}');
  const answer = await send(c, '{"id":9007199254740993,"method":"orderList.place","params":{"symbol":"BTCUSDT","side":"SELL","quantity":"1","price":"2","stopPrice":"1"}}');
  assert.is(answer, '{"id":9007199254740993,"status":200,"result":{"price":"0.10000000","qty":1.10,"big":1e400,"orders":[{"orderId":9007199254740993}],"listId":123456789012345678901234567890}}');
});

test('a frame that gives a key twice is refused naming the key, and never forwarded', async () => {
  const g = await gateway('3.12.0');
  const api = await client(g, '/ws-api/v3');
  const twoMethods = JSON.parse(await send(api, '{"id":7,"method":"ping","method":"order.place","params":{"symbol":"BTCUSDT","side":"BUY","type":"MARKET","quantity":1}}'));
  assert.equal([twoMethods.id, twoMethods.status, twoMethods.error.code], [7, 400, -1101]);
  assert.match(twoMethods.error.msg, /the key 'method' is given more than once/);
  const twoSymbols = JSON.parse(await send(api, '{"id":8,"method":"order.status","params":{"symbol":"BTCUSDT","orderId":1,"symbol":"ETHUSDT"}}'));
  assert.equal([twoSymbols.id, twoSymbols.status], [8, 400]);
  assert.match(twoSymbols.error.msg, /the key 'symbol' is given more than once in params/);
  const streams = await client(g, '/ws/btcusdt@trade');
  const sub = JSON.parse(await send(streams, '{"method":"LIST_SUBSCRIPTIONS","method":"SUBSCRIBE","params":["!nonsense"],"id":9}'));
  assert.is(sub.id, 9);
  assert.match(sub.error.msg, /the key 'method' is given more than once/);
  await sleep(30);
  assert.equal(up.frames, [], 'nothing forwarded');
});

test('REST: a migrated answer keeps the values no step changes', async () => {
  const rest = await fixedRest('[{"assetName":"BTC","id":9007199254740993,"fee":1.10,"big":1e400,"price":"0.10000000"}]');
  try {
    const g = await gateway('3.5.1,3.12.0', {}, [], rest.url);
    const res = await fetch(`${g.url}/@3.5.1/sapi/v1/margin/asset?asset=BTC`, { headers: { 'x-mbx-apikey': 'k' } });
    assert.is(res.status, 200);
    assert.is(await res.text(), '{"assetName":"BTC","id":9007199254740993,"fee":1.10,"big":1e400,"price":"0.10000000"}');
  } finally {
    await rest.stop();
  }
});

test.run();
