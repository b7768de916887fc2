// Bounds a hostile or careless client (or upstream) cannot push past: pipelining floods, abandoned
// requests, the total deadline, a hung endpoint, trickled bodies, idle and excess connections.
// Every test uses real sockets on 127.0.0.1 and is bounded in count and time.
import { connect, type Socket } from 'node:net';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { createLogger } from '../../src/log.js';
import type { RunningGateway } from '../../src/server.js';
import { API_KEY, SECRET, gatewayAt, signed, ts } from '../support/gateway.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { pipeliningFlood } from './flood.js';
import { timed } from '../support/timing.js';

const test = suite('bounds');
let upstream: Upstream;

test.before(async () => { upstream = await startUpstream({ [API_KEY]: { hmac: SECRET } }); });
test.before.each(async () => { await upstream.reset(); });
test.after(async () => { await upstream.stop(); });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function open(url: string): Promise<Socket> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), '127.0.0.1', () => resolve(s));
    s.on('error', reject);
  });
}

async function withGateway(args: string[], fn: (gw: RunningGateway) => Promise<void>): Promise<void> {
  const gw = await gatewayAt('3.12.0', upstream.url, args, { logger: createLogger('silent') });
  try {
    await fn(gw);
  } finally {
    await gw.close(0);
  }
}

test('pipelining flood: 4 × 5 000 unread GETs reach the upstream only as far as the bound allows; RSS bounded', async () => {
  await pipeliningFlood(upstream, 5_000, 1500); // 4 × 30 000 in test/soak/pipelining-flood.soak.ts
});

test('abandoned orders waiting for a busy upstream pool are never sent (0 of 50)', async () => {
  await withGateway(['--upstream-connections', '2', '--route-concurrency', '100', '--timeout', '5000'], async (gw) => {
    // Two slow requests hold both upstream connections.
    const busy = [0, 1].map(() => fetch(`${gw.url}/api/v3/ping`, { headers: { 'x-test-delay-ms': '1500' } }));
    await sleep(100);
    const orders = Array.from({ length: 50 }, (_, i) => {
      const ac = new AbortController();
      const q = signed(`symbol=BNBUSDT&side=BUY&type=MARKET&quantity=1&newClientOrderId=abandoned${i}&${ts()}`);
      const p = fetch(`${gw.url}/api/v3/order?${q}`, { method: 'POST', headers: { 'X-MBX-APIKEY': API_KEY }, signal: ac.signal }).catch(() => null);
      setTimeout(() => ac.abort(), 300);
      return p;
    });
    await Promise.all(orders);
    await Promise.all(busy);
    await sleep(500);
    const recs = await upstream.records();
    assert.is(recs.filter((r) => r.url.startsWith('/api/v3/order')).length, 0, 'abandoned orders reached the upstream');
    assert.is(recs.filter((r) => r.url.startsWith('/api/v3/ping')).length, 2);
  });
});

test('--timeout is a total deadline, accurate to ±100 ms from 100 ms up', async () => {
  for (const timeout of [150, 600]) {
    await withGateway(['--timeout', String(timeout)], async (gw) => {
      await fetch(`${gw.url}/api/v3/ping`); // the first forward loads undici; measure a warm gateway
      // Best of three: the bound is the gateway's; a loaded test machine can delay the client itself.
      const tries: number[] = [];
      for (let i = 0; i < 3 && !tries.some((t) => t <= timeout + 100); i++) {
        const t0 = performance.now();
        const res = await fetch(`${gw.url}/api/v3/ping`, { headers: { 'x-test-delay-ms': '3000' } });
        tries.push(performance.now() - t0);
        assert.is(res.status, 504);
        assert.match((await res.json() as { msg: string }).msg, new RegExp(`deadline of ${timeout} ms`));
        assert.ok(tries.at(-1)! >= timeout - 5, `--timeout ${timeout}: answered early, after ${tries.at(-1)!.toFixed(0)} ms`);
      }
      assert.ok(tries.some((t) => t <= timeout + 100), `--timeout ${timeout}: answered after ${tries.map((t) => t.toFixed(0)).join(', ')} ms`);
    });
  }
});

test('an upstream dripping its body is cut at the deadline', async () => {
  await withGateway(['--timeout', '700'], async (gw) => {
    // Reference: a whole undelayed answer from the same gateway, now (what the client's side costs).
    const plain = await timed(async () => (await fetch(`${gw.url}/api/v3/ping`)).text());
    const t0 = performance.now();
    const res = await fetch(`${gw.url}/api/v3/ping`, { headers: { 'x-test-drip-ms': '200' } });
    assert.is(res.status, 200); // the answer had begun
    const err = await res.text().then(() => null, (e: Error) => e);
    const took = performance.now() - t0;
    assert.ok(err, 'the dripping answer must be cut, not completed');
    assert.ok(took < 700 + 150 + plain.ms, `cut after ${took.toFixed(0)} ms (a plain answer took ${plain.ms.toFixed(0)} ms)`);
  });
});

test('a body trickled at 1 byte per 100 ms is answered 408 within the deadline; nothing forwarded', async () => {
  await withGateway(['--timeout', '500'], async (gw) => {
    const plain = await timed(async () => (await fetch(`${gw.url}/_gateway/health`)).text()); // the reference (not forwarded)
    const s = await open(gw.url);
    let answer = '';
    s.on('data', (d) => { answer += d.toString(); });
    const closed = new Promise<number>((resolve) => s.on('close', () => resolve(performance.now())));
    const t0 = performance.now();
    s.write(`POST /api/v3/order?${signed(`symbol=BNBUSDT&${ts()}`)} HTTP/1.1\r\nHost: x\r\nX-MBX-APIKEY: ${API_KEY}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n`);
    const drip = setInterval(() => { if (!s.destroyed) s.write('a'); }, 100);
    const end = await Promise.race([closed, sleep(3000).then(() => -1)]);
    clearInterval(drip);
    s.destroy();
    assert.ok(end > 0, 'the connection must be closed');
    assert.match(answer, /^HTTP\/1.1 408/);
    assert.ok(end - t0 < 500 + 200 + plain.ms, `closed after ${(end - t0).toFixed(0)} ms (a plain answer took ${plain.ms.toFixed(0)} ms)`);
    assert.is((await upstream.records()).length, 0);
  });
});

test('an endpoint the upstream never answers does not delay another endpoint', async () => {
  await withGateway(['--timeout', '4000', '--upstream-connections', '32'], async (gw) => {
    const base = performance.now();
    await fetch(`${gw.url}/api/v3/time`);
    const normal = performance.now() - base;
    const hung = Array.from({ length: 100 }, () => fetch(`${gw.url}/api/v3/ping`, { headers: { 'x-test-delay-ms': '3500' } }).then((r) => r.status, () => 0));
    await sleep(200);
    const t0 = performance.now();
    const res = await fetch(`${gw.url}/api/v3/time`);
    const took = performance.now() - t0;
    assert.is(res.status, 200);
    assert.ok(took < normal + 1000, `unrelated endpoint took ${took.toFixed(0)} ms beside a hung one`);
    const statuses = await Promise.all(hung);
    // The hung route holds its starting limit (16: the ceiling, half the pool); the rest waited in its
    // queue for --route-queue-wait (half the deadline) and were shed with 503 (test/overload/).
    assert.is(statuses.filter((s) => s === 503).length, 100 - 16);
  });
});

test('at the cap a new connection makes room: the oldest silent connection is closed, then the longest idle; a busy one never', async () => {
  await withGateway(['--max-connections', '4', '--headers-timeout', '20000', '--keep-alive-timeout', '20000'], async (gw) => {
    const closedFlag = (s: Socket) => { const f = { closed: false }; s.on('close', () => { f.closed = true; }).on('error', () => {}).resume(); return f; };
    // Two keep-alive connections that asked once and now idle, then two that never sent a byte.
    const idle = [await open(gw.url), await open(gw.url)];
    for (const s of idle) {
      s.write('GET /api/v3/ping HTTP/1.1\r\nHost: x\r\n\r\n');
      await sleep(100); // answered in turn: the first idles longest
    }
    const silent = [await open(gw.url), await open(gw.url)];
    const flags = [...idle, ...silent].map(closedFlag);
    await sleep(50);
    // New clients, each on a connection of its own that it keeps open: the oldest silent one made room.
    const clients: Socket[] = [];
    const ask = async () => {
      const s = await open(gw.url);
      clients.push(s);
      const status = new Promise<string>((r) => s.once('data', (d) => r(d.toString().split('\r\n')[0])));
      s.write('GET /api/v3/ping HTTP/1.1\r\nHost: x\r\n\r\n');
      const line = await Promise.race([status, sleep(5000).then(() => 'no answer')]);
      await sleep(50);
      return line;
    };
    assert.is(await ask(), 'HTTP/1.1 200 OK');
    assert.equal(flags.map((f) => f.closed), [false, false, true, false], 'the oldest silent connection closed first');
    assert.is(await ask(), 'HTTP/1.1 200 OK');
    assert.equal(flags.map((f) => f.closed), [false, false, true, true]);
    assert.is(await ask(), 'HTTP/1.1 200 OK');
    assert.equal(flags.map((f) => f.closed), [true, false, true, true], 'then the longest idle');
    for (const s of clients) s.destroy();
    for (const s of [...idle, ...silent]) s.destroy();
    await sleep(100);
    // Four connections each with a request in progress: nothing to reuse, the fifth is refused.
    const busy = await Promise.all(Array.from({ length: 4 }, () => open(gw.url)));
    for (const s of busy) s.on('error', () => {}).write('GET /api/v3/ping HTTP/1.1\r\nHost: x\r\nx-test-delay-ms: 3000\r\n\r\n');
    await sleep(150);
    const extra = await open(gw.url);
    let refusal = '';
    extra.on('data', (d) => { refusal += d.toString(); });
    await Promise.race([new Promise((r) => extra.on('close', r)), sleep(1500)]);
    assert.match(refusal, /^HTTP\/1.1 503/);
    for (const s of busy) s.destroy();
    await sleep(100);
    const metrics = await (await fetch(`${gw.url}/_gateway/metrics`, { signal: AbortSignal.timeout(5000) })).text();
    assert.match(metrics, /^gateway_connections_reused_total 3$/m);
  });
});

test('connection bounds: sockets that never finish their headers, and idle sockets, are closed', async () => {
  await withGateway(['--max-connections', '10', '--headers-timeout', '300', '--keep-alive-timeout', '300'], async (gw) => {
    const held = await Promise.all(Array.from({ length: 10 }, () => open(gw.url)));
    const heldClosed = held.map((s) => new Promise<boolean>((r) => s.on('close', () => r(true)).resume()));
    for (const s of held) s.write('GET /api/v3/ping HTTP/1.1\r\nHost: x\r\n'); // headers never finished
    // Silent sockets (headers never finished) are closed by the headers timeout (checked every second).
    const closed = await Promise.all(heldClosed.map((c) => Promise.race([c, sleep(2500).then(() => false)])));
    assert.ok(closed.every(Boolean), 'sockets that never finished their headers must be closed');
    // Idle keep-alive: one request, then silence.
    const ka = await open(gw.url);
    ka.resume();
    ka.write('GET /api/v3/ping HTTP/1.1\r\nHost: x\r\n\r\n');
    const t0 = performance.now();
    const kaClosed = await Promise.race([new Promise<number>((r) => ka.on('close', () => r(performance.now()))), sleep(4000).then(() => -1)]);
    assert.ok(kaClosed > 0 && kaClosed - t0 < 300 + 2500, 'idle keep-alive socket must be closed');
    const ok = await fetch(`${gw.url}/api/v3/ping`);
    assert.is(ok.status, 200);
  });
});

test.run();
