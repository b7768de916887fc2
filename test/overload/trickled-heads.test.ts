// Connections that trickle a request head a byte at a time (issue 46 finding 5): at the cap they
// make room for a new client as silent ones do, and the header timeout closes them without a cap.
import { connect, type Socket } from 'node:net';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { createLogger } from '../../src/log.js';
import type { RunningGateway } from '../../src/server.js';
import { API_KEY, SECRET, gatewayAt } from '../support/gateway.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { open as openWebsocket, startWsUpstream, wsUrl, type WsUpstream } from '../websocket/ws-upstream.js';

const test = suite('overload: trickled request heads');
let upstream: Upstream;
let streams: WsUpstream;

test.before(async () => { [upstream, streams] = await Promise.all([startUpstream({ [API_KEY]: { hmac: SECRET } }), startWsUpstream()]); });
test.after(async () => { await Promise.all([upstream.stop(), streams.stop()]); });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Wait until every trickler is closed, or `ms` passed. */
async function allClosed(tricklers: { closedAt: number }[], ms: number): Promise<void> {
  for (const end = performance.now() + ms; performance.now() < end && tricklers.some((t) => t.closedAt < 0);) await sleep(25);
}
const HEAD = 'GET /api/v3/ping HTTP/1.1\r\nHost: x\r\nX-Padding: ' + 'a'.repeat(200) + '\r\n\r\n';

/** A connection that sends one byte of a request head every `everyMs` (never the whole head in the test's time). */
interface Trickler { socket: Socket; closedAt: number; answer: string; stop(): void }

function trickle(port: number, everyMs: number): Promise<Trickler> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const t: Trickler = { socket, closedAt: -1, answer: '', stop: () => clearInterval(timer) };
    let sent = 0;
    const timer = setInterval(() => { if (sent < HEAD.length && socket.writable) socket.write(HEAD[sent++]); }, everyMs);
    socket.on('data', (d) => { t.answer += d.toString('latin1'); });
    socket.on('close', () => { t.closedAt = performance.now(); clearInterval(timer); });
    socket.on('error', () => {});
    socket.once('connect', () => { socket.write(HEAD[sent++]); resolve(t); });
    socket.once('error', reject);
  });
}

/** One request on a new connection, kept open afterwards (idle): the status line, or what happened instead. */
function ask(port: number, kept: Socket[]): Promise<string> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1', () => s.write('GET /api/v3/ping HTTP/1.1\r\nHost: x\r\n\r\n'));
    kept.push(s);
    const timer = setTimeout(() => resolve('no answer'), 3000);
    s.once('data', (d) => { clearTimeout(timer); resolve(d.toString('latin1').split('\r\n')[0]); });
    s.on('error', () => {});
    s.on('close', () => { clearTimeout(timer); resolve('closed without an answer'); });
  });
}

async function withGateway(args: string[], fn: (gw: RunningGateway, port: number) => Promise<void>): Promise<void> {
  const gw = await gatewayAt('3.12.0', upstream.url, args, { logger: createLogger('silent') });
  try {
    await fn(gw, Number(new URL(gw.url).port));
  } finally {
    await gw.close(0);
  }
}

test('at the cap, connections trickling a request head make room for new clients, oldest first, and are closed past the header timeout; an idle websocket stays', async () => {
  const args = ['--max-connections', '6', '--headers-timeout', '1000', '--overload-timeout', '1000', '--upstream', `exchange.streams=${streams.url}`];
  await withGateway(args, async (gw, port) => {
    // The oldest connection is a stream that never sends: upgraded, it is never closed to make room.
    const { ws } = await openWebsocket(`${wsUrl(gw)}/ws/btcusdt@trade`);
    const tricklers: Trickler[] = [];
    for (let i = 0; i < 5; i++) tricklers.push(await trickle(port, 150));
    await sleep(400); // each has sent bytes since, none a whole head
    assert.ok(tricklers.every((t) => t.closedAt < 0 && t.socket.bytesWritten > 1));
    // Two clients that keep their connections: the second finds the first idle, a trickler still goes first.
    const clients: Socket[] = [];
    const served = [await ask(port, clients), await ask(port, clients)];
    assert.equal(served, ['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK'], 'new clients are served, not refused, while tricklers fill the cap');
    assert.equal(tricklers.map((t) => t.closedAt >= 0), [true, true, false, false, false], 'the two oldest tricklers made room');
    // The rest: closed once the header timeout has passed, whatever they keep sending.
    await allClosed(tricklers, 2500); // 1 s after they opened, the sweep's 250 ms later at most
    assert.ok(tricklers.every((t) => t.closedAt >= 0), `every trickler is closed: ${tricklers.map((t) => t.closedAt >= 0)}`);
    const metrics = await (await fetch(`${gw.url}/_gateway/metrics`, { signal: AbortSignal.timeout(5000) })).text();
    assert.match(metrics, /^gateway_connections_reused_total 2$/m);
    assert.is(ws.readyState, ws.OPEN, 'the idle websocket is still open');
    ws.close();
    for (const c of clients) c.destroy();
  });
});

test('without pressure a trickled request head is answered 408 and closed once the header timeout has passed', async () => {
  await withGateway(['--max-connections', '100', '--headers-timeout', '500'], async (_gw, port) => {
    const t0 = performance.now();
    const tricklers = await Promise.all([trickle(port, 100), trickle(port, 100)]);
    await allClosed(tricklers, 2500); // the timeout, plus node's check every second
    for (const t of tricklers) {
      t.stop();
      assert.ok(t.closedAt > 0, 'a trickler is closed past the header timeout');
      assert.ok(t.closedAt - t0 >= 450, `not before the timeout (${(t.closedAt - t0).toFixed(0)} ms)`);
      assert.match(t.answer, /^HTTP\/1.1 408 /);
    }
    const clients: Socket[] = [];
    assert.is(await ask(port, clients), 'HTTP/1.1 200 OK');
    for (const c of clients) c.destroy();
  });
});

test.run();
