// The relay under load: 1 000 messages/s each way for 1 s (10 s in the soak), none lost or reordered, bytes identical;
// a client that stops reading is closed (1008) instead of being buffered for without bound; a
// client that writes faster than the upstream reads is paused, not buffered.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import type WebSocket from 'ws';
import type { RunningGateway } from '../../src/server.js';
import { relayInOrder } from './relay-order.js';
import { closed, open, sleep, startWsUpstream, wsGatewayAt, wsUrl, type WsUpstream } from './ws-upstream.js';

const test = suite('websocket relay');
let upstream: WsUpstream;
let gw: RunningGateway;
const LIMIT = 1024 * 1024;

test.before(async () => {
  upstream = await startWsUpstream();
  upstream.autoAnswer = false;
  gw = await wsGatewayAt('3.12.0', upstream, {}, ['--ws-max-buffered', String(LIMIT)]); // the flag, as users set it
});
test.before.each(() => upstream.reset());
test.after(async () => {
  await gw.close();
  await upstream.stop();
});

// The 10 s version (10 000 frames each way) is the soak test/soak/websocket-relay.soak.ts.
test('1 000 messages/s each way for 1 s: all 1 000 arrive, in order, byte-identical', async () => {
  await relayInOrder(gw, upstream, 1000, 1000);
});

test('a client that stops reading is closed with 1008 once more than the limit waits for it', async () => {
  const before = gw.websockets.stats().slowClients;
  const c = await open(`${wsUrl(gw)}/ws/btcusdt@trade`);
  const conn = await upstream.nextConnection();
  let got = 0;
  c.ws.on('message', () => { got++; });
  c.ws.pause(); // stop reading the gateway's socket: its TCP window fills, then the gateway's buffer
  const chunk = Buffer.alloc(64 * 1024, 'a').toString();
  let sent = 0, upstreamClosed = false;
  void conn.closed.then(() => { upstreamClosed = true; });
  const deadline = Date.now() + 20_000;
  while (!upstreamClosed && Date.now() < deadline && sent < 4000) {
    // Respect the upstream's own buffer so only the gateway can be the one accumulating.
    if (conn.ws.bufferedAmount < LIMIT) { conn.ws.send(chunk); sent++; } else await sleep(1);
    if (sent % 16 === 0) await sleep(0);
  }
  assert.ok(upstreamClosed, `upstream still open after ${sent} frames of 64 KiB`);
  assert.equal(await conn.closed, { code: 1001, reason: 'client too slow' });
  assert.is(gw.websockets.stats().slowClients, before + 1);
  console.log(`    slow client closed after the upstream sent ${sent} frames (${(sent * 64 / 1024).toFixed(1)} MiB)`);
  c.ws.resume();
  const end = await closed(c.ws);
  assert.is(end.code, 1008);
  assert.is(end.reason, `client too slow: more than ${LIMIT} bytes waiting`, 'the --ws-max-buffered limit applied');
  assert.ok(got < sent, `frames after the limit were dropped (${got} of ${sent} arrived)`);
});

test('a client writing faster than the upstream reads is paused (its own buffer grows), then all arrive in order', async () => {
  const c = await open(`${wsUrl(gw)}/ws/btcusdt@trade`);
  const conn = await upstream.nextConnection();
  const raw = (conn.ws as unknown as { _socket: import('node:net').Socket })._socket;
  raw.pause(); // the upstream stops reading
  const N = 600;
  const chunk = (i: number) => `${String(i).padStart(6, '0')}${'b'.repeat(64 * 1024)}`;
  for (let i = 0; i < N; i++) c.ws.send(chunk(i));
  await sleep(500);
  const clientBuffered = (c.ws as WebSocket).bufferedAmount;
  assert.ok(clientBuffered > 4 * 1024 * 1024, `client-side buffer ${clientBuffered}: the gateway stopped reading`);
  raw.resume();
  const deadline = Date.now() + 10_000;
  while (conn.received.length < N && Date.now() < deadline) await sleep(20);
  assert.is(conn.received.length, N);
  for (let i = 0; i < N; i++) assert.is(conn.received[i].data.subarray(0, 6).toString(), String(i).padStart(6, '0'));
  c.ws.close();
  await closed(c.ws);
});

test.run();
