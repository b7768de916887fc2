// The exchange's own client library, @binance/connector, pointed at the gateway through its wsURL
// option: its WebsocketStream and WebsocketAPI work unchanged against the local upstream.
import { Console } from 'node:console';
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import type { RunningGateway } from '../../src/server.js';
import { sleep, startWsUpstream, wsGatewayAt, wsUrl, type WsUpstream } from './ws-upstream.js';

interface Callbacks {
  open?(client: unknown): void;
  message?(data: string): void;
  close?(): void;
}
interface WsClient {
  disconnect(): void;
  isConnected(): boolean;
}
interface StreamClient extends WsClient {
  kline(symbol: string, interval: string): void;
  subscribe(stream: string | string[]): void;
}
interface ApiClient extends WsClient {
  ping(options?: Record<string, unknown>): void;
  exchangeInfo(options?: Record<string, unknown>): void;
  klines(symbol: string, interval: string, options?: Record<string, unknown>): void;
  account(options?: Record<string, unknown>): void;
}
const require = createRequire(import.meta.url);
const { WebsocketStream, WebsocketAPI } = require('@binance/connector') as {
  WebsocketStream: new (options: { wsURL: string; logger: Console; callbacks: Callbacks; combinedStreams?: boolean }) => StreamClient;
  WebsocketAPI: new (apiKey: string, apiSecret: string, options: { wsURL: string; logger: Console; callbacks: Callbacks }) => ApiClient;
};
const silent = new Console({ stdout: new Writable({ write: (_c, _e, cb) => cb() }) });

const test = suite('@binance/connector through the gateway');
let upstream: WsUpstream;
let gw: RunningGateway;

test.before(async () => {
  upstream = await startWsUpstream();
  gw = await wsGatewayAt('3.12.0', upstream);
});
test.before.each(() => upstream.reset());
test.after(async () => {
  await gw.close();
  await upstream.stop();
});

async function until<T>(what: string, f: () => T | undefined, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

test('WebsocketStream: kline subscription receives a pushed kline; an invalid SUBSCRIBE gets the error frame', async () => {
  const messages: string[] = [];
  const client = new WebsocketStream({ wsURL: wsUrl(gw), logger: silent, callbacks: { message: (d) => messages.push(d) } });
  client.kline('BTCUSDT', '1m');
  const conn = await upstream.nextConnection();
  assert.is(conn.url, '/ws/btcusdt@kline_1m');
  await until('connected', () => client.isConnected() || undefined);
  const kline = '{"e":"kline","E":1700000000000,"s":"BTCUSDT","k":{"t":1700000000000,"i":"1m","o":"1.0","c":"2.0","x":false}}';
  conn.ws.send(kline);
  assert.is(await until('kline', () => messages[0]), kline);

  client.subscribe(['bnbbtc@kline_1s', 'btcusdt@kline_1m@+08:00']); // valid at 3.12.0: forwarded
  const ack = JSON.parse(await until('subscribe ack', () => messages[1]));
  assert.is(ack.result, null);
  client.subscribe('btcusdt@kline_7m'); // no such interval: answered by the gateway
  const err = JSON.parse(await until('error frame', () => messages[2]));
  assert.is(err.error.code, 2);
  assert.match(err.error.msg, /btcusdt@kline_7m/);
  assert.is(conn.received.length, 1, 'the invalid SUBSCRIBE never reached the upstream');
  client.disconnect();
  await conn.closed;
});

test('WebsocketStream with combinedStreams: /stream?streams=… through the gateway', async () => {
  const messages: string[] = [];
  const client = new WebsocketStream({ wsURL: wsUrl(gw), logger: silent, combinedStreams: true, callbacks: { message: (d) => messages.push(d) } });
  client.subscribe(['btcusdt@aggTrade', 'ethbtc@depth20@100ms']);
  const conn = await upstream.nextConnection();
  assert.is(conn.url, '/stream?streams=btcusdt@aggTrade/ethbtc@depth20@100ms');
  await until('connected', () => client.isConnected() || undefined);
  conn.ws.send('{"stream":"btcusdt@aggTrade","data":{"e":"aggTrade"}}');
  assert.is(await until('message', () => messages[0]), '{"stream":"btcusdt@aggTrade","data":{"e":"aggTrade"}}');
  client.disconnect();
  await conn.closed;
});

test('WebsocketAPI: ping, exchangeInfo, klines and a signed account call get the upstream\'s answers', async () => {
  const messages: string[] = [];
  let opened = false;
  const client = new WebsocketAPI('test-key', 'test-secret', {
    wsURL: `${wsUrl(gw)}/ws-api/v3`, logger: silent, callbacks: { open: () => { opened = true; }, message: (d) => messages.push(d) },
  });
  const conn = await upstream.nextConnection();
  await until('open', () => opened || undefined);
  client.ping({ id: 'p1' });
  client.exchangeInfo({ id: 'e1', symbols: ['BTCUSDT', 'BNBBTC'] });
  client.klines('BTCUSDT', '1s', { id: 'k1', limit: 5 });
  client.account({ id: 'a1' });
  client.klines('BTCUSDT', '7m', { id: 'k2' }); // refused by the gateway
  await until('5 answers', () => (messages.length >= 5 ? true : undefined));
  const byId = Object.fromEntries(messages.map((m) => JSON.parse(m)).map((m) => [m.id, m]));
  assert.equal(byId.p1, { id: 'p1', status: 200, result: { upstream: true, method: 'ping', params: {} } });
  assert.is(byId.e1.result.method, 'exchangeInfo');
  assert.equal(byId.e1.result.params.symbols, ['BTCUSDT', 'BNBBTC']);
  assert.is(byId.k1.result.method, 'klines');
  assert.is(byId.a1.result.method, 'account.status');
  assert.is(byId.a1.result.params.apiKey, 'test-key');
  assert.ok(byId.a1.result.params.signature, 'signed by the client, forwarded untouched');
  assert.is(byId.k2.status, 400);
  assert.is(byId.k2.error.code, -1130);
  assert.equal(conn.received.map((f) => JSON.parse(f.data.toString()).id), ['p1', 'e1', 'k1', 'a1']);
  client.disconnect();
  await conn.closed;
});

test.run();
