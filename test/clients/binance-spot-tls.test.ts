// Today's official client, @binance/spot 32.0.4, through a gateway serving TLS: REST with base URL
// https://…, the websocket API at wss://…/ws-api/v3 and market streams at wss://…, the client
// trusting the test's CA through its own agent options (httpsAgent, agent). The gateway speaks
// plain HTTP and ws to the local stand-ins behind it.
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { createRequire } from 'node:module';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { certificateAuthority } from '../support/certificates.js';
import { API_KEY, SECRET, gatewayAt } from '../support/gateway.js';
import { newestExchangeRelease } from '../support/newest.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import type { RunningGateway } from '../../src/server.js';
import { startWsUpstream, type WsUpstream } from '../websocket/ws-upstream.js';

const require = createRequire(import.meta.url);
type Call = (params?: Record<string, unknown>) => Promise<unknown>;
interface StreamsConnection { trade(p: { symbol: string }): { on(e: 'message', cb: (d: unknown) => void): void }; disconnect(): Promise<void> }
const { Spot } = require('@binance/spot') as {
  Spot: new (config: Record<string, unknown>) => {
    restAPI: Record<string, Call>;
    websocketAPI: { connect(): Promise<Record<string, Call> & { disconnect(): Promise<void> }> };
    websocketStreams: { connect(): Promise<StreamsConnection> };
  };
};

const NEWEST = newestExchangeRelease();
const test = suite(`@binance/spot 32.0.4 over TLS (https://, wss://) at ${NEWEST}`);
let upstream: Upstream;
let wsUp: WsUpstream;
let gw: RunningGateway;
let ca: Buffer;
let origin: string;

test.before(async () => {
  upstream = await startUpstream({ [API_KEY]: { hmac: SECRET } });
  wsUp = await startWsUpstream();
  const authority = certificateAuthority('ca', '/CN=Test CA');
  const served = authority.issue('gateway', '/CN=localhost', true);
  ca = readFileSync(authority.cert);
  gw = await gatewayAt(NEWEST, upstream.url, ['--tls-cert', served.cert, '--tls-key', served.key, '--upstream', `exchange.streams=${wsUp.url}`, '--upstream', `exchange.wsApi=${wsUp.url}`]);
  origin = `localhost:${new URL(gw.url).port}`;
});
test.after(async () => {
  await gw?.close();
  await wsUp?.stop();
  await upstream?.stop();
});

test('REST at https://: a public and a signed call, the signature verified by the upstream', async () => {
  await upstream.reset();
  const rest = new Spot({ configurationRestAPI: { apiKey: API_KEY, apiSecret: SECRET, basePath: `https://${origin}`, retries: 0, timeout: 10_000, httpsAgent: new Agent({ ca }) } }).restAPI;
  await rest.ping();
  await rest.getAccount();
  const seen = (await upstream.records()).map((r) => `${r.method} ${r.url.split('?')[0]} ${r.verified}`);
  assert.equal(seen, ['GET /api/v3/ping null', 'GET /api/v3/account true']);
});

test('websocket API at wss://…/ws-api/v3: a signed request reaches the upstream and its answer comes back', async () => {
  wsUp.reset();
  const conn = await new Spot({ configurationWebsocketAPI: { apiKey: API_KEY, apiSecret: SECRET, wsURL: `wss://${origin}/ws-api/v3`, timeout: 10_000, reconnectDelay: 60_000, agent: new Agent({ ca }) } }).websocketAPI.connect();
  try {
    const { data } = await conn.accountStatus() as { data: { upstream?: boolean; method?: string } };
    assert.is(data.upstream, true, 'the stand-in\'s answer');
    assert.is(data.method, 'account.status');
    const sent = JSON.parse(wsUp.connections[0].received.at(-1)!.data.toString()) as { method: string; params: { signature?: string } };
    assert.is(sent.method, 'account.status');
    assert.ok(sent.params.signature, 'signed by the client');
  } finally {
    await conn.disconnect();
  }
});

test('market streams at wss://: subscribed through the gateway, an upstream event delivered', async () => {
  wsUp.reset();
  const conn = await new Spot({ configurationWebsocketStreams: { wsURL: `wss://${origin}`, reconnectDelay: 60_000, agent: new Agent({ ca }) } }).websocketStreams.connect();
  try {
    const got = new Promise<unknown>((resolve) => conn.trade({ symbol: 'btcusdt' }).on('message', resolve));
    const up = await wsUp.nextConnection();
    await new Promise((r) => setTimeout(r, 200)); // the SUBSCRIBE frame on its way
    const event = { e: 'trade', E: 1, s: 'BTCUSDT', t: 7, p: '1.0', q: '2.0', T: 1, m: true, M: true };
    up.ws.send(JSON.stringify({ stream: 'btcusdt@trade', data: event }));
    const message = await Promise.race([got, new Promise((_, reject) => setTimeout(() => reject(new Error('no trade event within 5 s')), 5000))]);
    assert.is((message as { s: string }).s, 'BTCUSDT');
    assert.ok(up.received.some((f) => /"SUBSCRIBE"/.test(f.data.toString()) && /btcusdt@trade/.test(f.data.toString())), 'the subscription reached the upstream');
  } finally {
    await conn.disconnect();
  }
});

test.run();
