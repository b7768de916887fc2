// Everything the gateway writes counts toward the slow-peer limit (--ws-max-buffered), not only
// relayed data: its own answers to invalid frames, relayed pings and pongs. Each flood below ends
// with the gateway's memory bounded: a client that does not read is closed with 1008; a client
// writing faster than a stalled upstream reads is not read until the upstream drains.
//
// The gateway runs as a child process (the CLI, as users run it) so that its RSS is its own: the
// upstream stand-in and the flooding clients in this process buffer megabytes of their own, which
// an in-process measurement would mix in.
import type { Socket } from 'node:net';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { startGatewayProcess, type Proc } from '../support/processes.js';
import { rssMiB } from '../support/rss.js';
import { closed, open, sleep, startWsUpstream, type Opened, type UpstreamConnection, type WsUpstream } from './ws-upstream.js';

const test = suite('websocket slow peers: every write is bounded');
const LIMIT = 256 * 1024;
const MAX_GROWTH_MIB = 64;
// Each flood ends on its evidence (the peer closed, the client's buffer filled); this bound only
// ends a flood that never would. 8 s was too short for the client to send its share at load 42.
const FLOOD_MS = 30_000;
let upstream: WsUpstream;
let gw: Proc & { url: string };
let wsBase: string;

test.before(async () => {
  // No automatic pongs: ws would end a peer that owes it more than 60 (the ping flood below).
  upstream = await startWsUpstream({ autoPong: false });
  gw = await startGatewayProcess([
    '--release', '3.12.0', '--log-level', 'warn', '--ws-max-buffered', String(LIMIT), '--upstream', 'exchange=http://127.0.0.1:9',
    '--upstream', `exchange.streams=${upstream.url}`, '--upstream', `exchange.wsApi=${upstream.url}/ws-api/v3`,
  ]);
  wsBase = gw.url.replace(/^http/, 'ws');
});
test.before.each(() => { upstream.reset(); upstream.autoAnswer = true; });
test.after(async () => {
  await gw.stop();
  await upstream.stop();
});

/** Samples the gateway's RSS every 20 ms until stopped; returns the growth over the first sample. */
function rssWatch(): { stop(): number } {
  const pid = gw.child.pid!;
  const base = rssMiB(pid);
  let peak = base;
  const timer = setInterval(() => { peak = Math.max(peak, rssMiB(pid)); }, 20);
  return { stop: () => { clearInterval(timer); peak = Math.max(peak, rssMiB(pid)); return peak - base; } };
}

const rawSocket = (ws: unknown) => (ws as { _socket: Socket })._socket;
const gatewayAlive = () => gw.child.exitCode === null && gw.child.signalCode === null;

/**
 * A client that stops reading and sends `frame` (each answered by the gateway itself) until the
 * gateway gives up on it: the upstream sees 1001 "client too slow". Then the client reads again
 * and must find the 1008 close behind the answers already queued for it.
 */
async function floodWithoutReading(path: string, frame: string): Promise<{ sent: number; growth: number }> {
  const c = await open(`${wsBase}${path}`);
  const conn = await upstream.nextConnection();
  let upstreamEnd: { code: number; reason: string } | undefined;
  void conn.closed.then((e) => { upstreamEnd = e; });
  c.ws.pause(); // the client reads nothing from now on
  const rss = rssWatch();
  let sent = 0;
  const deadline = Date.now() + FLOOD_MS;
  while (!upstreamEnd && Date.now() < deadline) {
    // Respect the client's own buffer: only the gateway may be the one accumulating.
    if (c.ws.bufferedAmount < LIMIT) { c.ws.send(frame); sent++; } else await sleep(1);
    if (sent % 64 === 0) await sleep(0);
  }
  await sleep(200); // let the gateway finish with what it had read
  const growth = rss.stop();
  assert.ok(upstreamEnd, `the gateway still relays after ${sent} frames (${(sent * frame.length / 1048576).toFixed(1)} MiB) answered to a client that reads nothing; RSS +${growth.toFixed(0)} MiB`);
  assert.equal(upstreamEnd, { code: 1001, reason: 'client too slow' });
  const end = closed(c.ws);
  c.ws.resume();
  assert.equal(await end, { code: 1008, reason: `client too slow: more than ${LIMIT} bytes waiting` });
  assert.is(conn.received.length, 0, 'no refused frame reached the upstream');
  return { sent, growth };
}

test('a client sending invalid SUBSCRIBE frames and never reading the refusals is closed with 1008', async () => {
  const frame = JSON.stringify({ method: 'SUBSCRIBE', params: ['BTCUSDT@nosuchstream'], id: 1 });
  const { sent, growth } = await floodWithoutReading('/ws/btcusdt@trade', frame);
  console.log(`    closed after ${sent} invalid SUBSCRIBE frames; gateway RSS +${growth.toFixed(1)} MiB`);
  assert.ok(growth < MAX_GROWTH_MIB, `gateway RSS grew ${growth.toFixed(0)} MiB`);
  assert.ok(gatewayAlive());
});

test('a client sending unknown websocket-API methods and never reading the refusals is closed with 1008', async () => {
  // A long id, echoed in every refusal: the socket buffers between the two fill in fewer frames.
  const frame = JSON.stringify({ id: 'x'.repeat(1000), method: 'no.such.method', params: {} });
  const { sent, growth } = await floodWithoutReading('/ws-api/v3', frame);
  console.log(`    closed after ${sent} unknown-method requests; gateway RSS +${growth.toFixed(1)} MiB`);
  assert.ok(growth < MAX_GROWTH_MIB, `gateway RSS grew ${growth.toFixed(0)} MiB`);
  assert.ok(gatewayAlive());
});

test('a ping flood from the upstream towards a client that does not read closes the client with 1008', async () => {
  // autoPong off: this client's ws would otherwise end the connection itself, owed more than 60 pongs.
  const c = await open(`${wsBase}/ws/btcusdt@trade`, { autoPong: false });
  const conn = await upstream.nextConnection();
  let upstreamEnd: { code: number; reason: string } | undefined;
  void conn.closed.then((e) => { upstreamEnd = e; });
  c.ws.pause();
  const rss = rssWatch();
  const payload = Buffer.alloc(125, 'u'); // the largest ping
  let sent = 0;
  const deadline = Date.now() + FLOOD_MS;
  while (!upstreamEnd && Date.now() < deadline) {
    if (conn.ws.bufferedAmount < LIMIT) { conn.ws.ping(payload); sent++; } else await sleep(1);
    if (sent % 64 === 0) await sleep(0);
  }
  await sleep(200);
  const growth = rss.stop();
  console.log(`    closed after ${sent} upstream pings; gateway RSS +${growth.toFixed(1)} MiB`);
  assert.ok(upstreamEnd, `the gateway still relays after ${sent} pings to a client that reads nothing; RSS +${growth.toFixed(0)} MiB`);
  assert.equal(upstreamEnd, { code: 1001, reason: 'client too slow' });
  assert.ok(growth < MAX_GROWTH_MIB, `gateway RSS grew ${growth.toFixed(0)} MiB`);
  const end = closed(c.ws);
  c.ws.resume();
  assert.is((await end).code, 1008);
  assert.ok(gatewayAlive());
});

test('a ping flood from the client towards an upstream that stops reading: the client is not read until it drains', async () => {
  upstream.autoAnswer = false;
  const c: Opened = await open(`${wsBase}/ws/btcusdt@trade`);
  const conn: UpstreamConnection = await upstream.nextConnection();
  let pingsUp = 0;
  conn.ws.on('ping', () => { pingsUp++; });
  rawSocket(conn.ws).pause(); // the upstream stops reading
  const rss = rssWatch();
  const payload = Buffer.alloc(125, 'p'); // the largest ping: the most bytes per frame the gateway takes in
  let sent = 0;
  const deadline = Date.now() + FLOOD_MS;
  // Once the gateway stops reading this client, its pings pile up in the client's own buffer.
  while (c.ws.bufferedAmount < 4 * LIMIT && Date.now() < deadline) {
    c.ws.ping(payload);
    sent++;
    if (sent % 64 === 0) await sleep(0);
  }
  await sleep(200);
  const growth = rss.stop();
  console.log(`    the gateway stopped reading the client after ${sent - Math.floor(c.ws.bufferedAmount / 131)} of ${sent} pings; gateway RSS +${growth.toFixed(1)} MiB`);
  assert.ok(c.ws.bufferedAmount >= 4 * LIMIT, `the gateway kept reading: ${sent} pings sent in ${FLOOD_MS} ms, client buffer ${c.ws.bufferedAmount} bytes; RSS +${growth.toFixed(0)} MiB`);
  assert.ok(growth < MAX_GROWTH_MIB, `gateway RSS grew ${growth.toFixed(0)} MiB`);
  // The upstream reads again: every ping arrives and the client is read again.
  rawSocket(conn.ws).resume();
  const until = Date.now() + 8000;
  while (pingsUp < sent && Date.now() < until) await sleep(20);
  assert.is(pingsUp, sent, 'every ping reached the upstream once it read again');
  c.ws.send('after');
  while (conn.received.length < 1 && Date.now() < until) await sleep(10);
  assert.is(conn.received[0]?.data.toString(), 'after');
  c.ws.close();
  await closed(c.ws);
  assert.ok(gatewayAlive());
});

test('an upstream that stays stalled: the held client is closed with 1008 after --ws-max-hold', async () => {
  const held = await startGatewayProcess([
    '--release', '3.12.0', '--log-level', 'warn', '--ws-max-buffered', String(LIMIT), '--ws-max-hold', '800', '--upstream', 'exchange=http://127.0.0.1:9',
    '--upstream', `exchange.streams=${upstream.url}`, '--upstream', `exchange.wsApi=${upstream.url}/ws-api/v3`,
  ]);
  try {
    upstream.autoAnswer = false;
    const c: Opened = await open(`${held.url.replace(/^http/, 'ws')}/ws/btcusdt@trade`);
    const conn: UpstreamConnection = await upstream.nextConnection();
    rawSocket(conn.ws).pause(); // the upstream stops reading, for good
    const end = closed(c.ws);
    const payload = Buffer.alloc(125, 'p');
    let ended = false;
    void end.then(() => { ended = true; });
    const deadline = Date.now() + FLOOD_MS;
    let sent = 0;
    while (!ended && Date.now() < deadline) {
      if (c.ws.bufferedAmount < 4 * LIMIT) {
        c.ws.ping(payload);
        if (++sent % 64 === 0) await sleep(0);
      } else await sleep(20);
    }
    assert.ok(ended, `the client must be closed once held longer than --ws-max-hold; client buffer ${c.ws.bufferedAmount}; gateway said: ${held.output()}`);
    assert.equal(await end, { code: 1008, reason: `upstream too slow: more than ${LIMIT} bytes waiting for 800 ms` });
  } finally {
    await held.stop();
  }
});

test.run();
