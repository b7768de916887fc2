// Lifecycle: SIGTERM to `npm start` stops the gateway (no orphan holding the port); a drain ends as
// soon as in-flight work is done; /_gateway/ready says 503 once draining; under --workers a worker
// whose event loop stops is replaced; with --accept-grace (2 s by default) a stopping gateway hands
// over to the other replicas before it closes its listener.
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { Worker } from 'node:worker_threads';
import { get, request, type ClientRequest, type IncomingHttpHeaders } from 'node:http';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { createLogger } from '../../src/log.js';
import { readConfig } from '../../src/config.js';
import { startGateway, type RunningGateway } from '../../src/server.js';
import { API_KEY, gatewayAt, SECRET, signed, ts } from '../support/gateway.js';
import { childPids, ROOT, startGatewayProcess, startUpstream, type Upstream } from '../support/processes.js';

const test = suite('shutdown and workers');
let upstream: Upstream;

test.before(async () => { upstream = await startUpstream({ [API_KEY]: { hmac: SECRET } }); });
test.after(async () => { await upstream.stop(); });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function refuses(url: string): Promise<boolean> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const s = connect(Number(port), '127.0.0.1');
    s.on('connect', () => { s.destroy(); resolve(false); });
    s.on('error', () => resolve(true));
  });
}

test('SIGTERM to `npm start` stops the gateway: the port is free again', async () => {
  // Its own process group, so whatever happens the test can end every process npm started.
  const npm = spawn('npm', ['start', '--', '--port', '0', '--upstream', `exchange=${upstream.url}`, '--log-level', 'warn'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  try {
    await stopsOnSigterm(npm);
  } finally {
    try { process.kill(-npm.pid!, 'SIGKILL'); } catch { /* the group is gone: nothing was left behind */ }
    npm.stdout!.destroy();
    npm.stderr!.destroy();
  }
});

async function stopsOnSigterm(npm: ReturnType<typeof spawn>): Promise<void> {
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start not ready:\n${out}`)), 60_000); // a bound, not a speed claim
    npm.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    npm.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  });
  assert.is((await fetch(`${url}/api/v3/ping`)).status, 200);
  npm.kill('SIGTERM');
  let free = false;
  for (let i = 0; i < 40 && !free; i++) {
    await sleep(100);
    free = await refuses(url);
  }
  assert.ok(free, `the gateway still listens at ${url} after SIGTERM to npm`);
}

test('drain ends as soon as in-flight requests finish, and they finish with 200', async () => {
  // A grace far longer than any scheduling delay: exiting in under half of it can only mean the
  // drain ended with the in-flight work (a loaded machine took 3.4 s to get there; idle, ~0.7 s).
  const gw = await startGatewayProcess(['--upstream', `exchange=${upstream.url}`, '--shutdown-grace', '30000', '--log-level', 'warn']);
  await upstream.reset();
  const slow = fetch(`${gw.url}/api/v3/ping`, { headers: { 'x-test-delay-ms': '700' } });
  // In flight once the upstream has it (a fixed 150 ms was not enough at load average 6: the
  // request had not reached the gateway when it stopped listening, and fetch failed).
  for (let i = 0; i < 500 && (await upstream.records()).length === 0; i++) await sleep(10);
  assert.is((await upstream.records()).length, 1, 'the request reached the upstream');
  const t0 = performance.now();
  const exited = new Promise<number>((resolve) => gw.child.once('exit', () => resolve(performance.now())));
  gw.child.kill('SIGTERM');
  const res = await slow;
  assert.is(res.status, 200, 'the in-flight request completes');
  const took = (await exited) - t0;
  assert.ok(took < 15_000, `exited ${took.toFixed(0)} ms after SIGTERM (in flight: under 700 ms; grace 30 s: a fixed wait would take 30 s)`);
});

test('/_gateway/ready: 200 while serving, 503 once draining (asked on a pipelined connection)', async () => {
  const gw = await gatewayAt('3.12.0', upstream.url, [], { logger: createLogger('silent') });
  assert.is((await fetch(`${gw.url}/_gateway/ready`)).status, 200);
  const { port } = new URL(gw.url);
  const s = connect(Number(port), '127.0.0.1');
  let answers = '';
  s.on('data', (d) => { answers += d.toString(); });
  await new Promise((r) => s.once('connect', r));
  // A slow request, and behind it on the same connection a readiness check parsed while draining.
  s.write('GET /api/v3/ping HTTP/1.1\r\nHost: x\r\nx-test-delay-ms: 400\r\n\r\n');
  await sleep(100);
  const closing = gw.close(5000);
  assert.is(gw.ready(), false);
  s.write('GET /_gateway/ready HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  await closing;
  await sleep(50);
  const statuses = [...answers.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1]);
  assert.equal(statuses, ['200', '503'], answers);
  s.destroy();
});

/** One request on its own connection: status, headers, body. */
function once(url: string, method: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { method, headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    }).on('error', reject).end();
  });
}

test('--accept-grace: a stopping gateway refuses what a balancer retries elsewhere, serves orders, and closes its listener once no connection comes', async () => {
  const lines: string[] = [];
  const gw = await gatewayAt('3.12.0', upstream.url, ['--accept-grace', '20000', '--rate-limit', 'off'], { logger: createLogger('info', (l) => lines.push(l)) });
  await upstream.reset();
  const closing = gw.close();
  assert.is(gw.ready(), false);
  assert.is((await once(`${gw.url}/_gateway/ready`, 'GET')).status, 503, 'readiness says draining');
  // Idempotent: refused before anything is forwarded, with what a balancer needs to retry elsewhere.
  for (const method of ['GET', 'DELETE']) {
    const path = method === 'GET' ? '/api/v3/ping' : `/api/v3/order?${signed(`symbol=BNBUSDT&orderId=1&${ts()}`)}`;
    const res = await once(`${gw.url}${path}`, method, { 'x-mbx-apikey': API_KEY });
    assert.is(res.status, 503, `${method}: ${res.body}`);
    assert.is(res.headers['retry-after'], '1');
    assert.is(res.headers.connection, 'close');
    // In the exchange's own envelope ({code, msg}), as any other refusal of the route would be.
    const body = JSON.parse(res.body) as { code: number; msg: string };
    assert.is(body.code, -1008);
    assert.match(body.msg, /stopping: a (GET|DELETE) request is left to another replica \(nothing was forwarded\)/);
  }
  // An order (a balancer does not retry a POST) is served, and its connection closed after it.
  const order = await once(`${gw.url}/api/v3/order?${signed(`symbol=BNBUSDT&side=BUY&type=MARKET&quantity=1&${ts()}`)}`, 'POST', { 'x-mbx-apikey': API_KEY });
  assert.is(order.status, 200, order.body);
  assert.is(order.headers.connection, 'close');
  assert.equal((await upstream.records()).map((r) => r.method), ['POST'], 'only the order reached the upstream');
  // Quiet since the order: the listener closes (250 ms without a connection), long before the 20 s grace.
  const quietFrom = performance.now();
  await closing;
  const took = performance.now() - quietFrom;
  assert.ok(took < 10_000, `closed ${took.toFixed(0)} ms after the last connection: the 20 s grace, not the quiet, ended it`);
  assert.ok(await refuses(gw.url), 'the listener is closed');
  assert.ok(lines.some((l) => /listener closed after \d+ ms \(no new connection\); 2 request\(s\) left to other replicas/.test(l)), lines.join('\n'));
});

/**
 * A POST whose connection the kernel queues while the gateway's process stalls 400 ms (the client is
 * another thread, connecting 100 ms into the stall); the stop begins before the stall or at its end
 * (SIGTERM handled as the process wakes, with the connection still in the listener's queue).
 */
async function queuedOrder(gw: RunningGateway, stopAt: 'before the stall' | 'after the stall'): Promise<{ answer: string; closing: Promise<void> }> {
  const { port } = new URL(gw.url);
  const path = `/api/v3/order?${signed(`symbol=BNBUSDT&side=BUY&type=MARKET&quantity=1&${ts()}`)}`;
  const client = new Worker(`
    const { workerData, parentPort } = require('node:worker_threads');
    const { connect } = require('node:net');
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    const s = connect(workerData.port, '127.0.0.1');
    let out = '';
    s.on('data', (d) => { out += d; });
    s.on('error', (e) => parentPort.postMessage('error ' + e.code));
    s.on('close', () => parentPort.postMessage(out.split('\\r\\n')[0]));
    s.write('POST ' + workerData.path + ' HTTP/1.1\\r\\nHost: x\\r\\nX-MBX-APIKEY: ' + workerData.key + '\\r\\nContent-Length: 0\\r\\n\\r\\n');
  `, { eval: true, workerData: { port: Number(port), path, key: API_KEY } });
  const answered = new Promise<string>((resolve) => client.once('message', resolve));
  await new Promise((r) => client.once('online', r));
  let closing = stopAt === 'before the stall' ? gw.close() : undefined;
  // The process stalls (a long GC, a busy machine), in the check phase: when it wakes, timers due
  // meanwhile run before the poll phase that would accept the connection the kernel queued.
  await new Promise<void>((r) => setImmediate(() => {
    for (const until = performance.now() + 400; performance.now() < until;) { /* stalled */ }
    closing ??= gw.close();
    r();
  }));
  const answer = await answered;
  await client.terminate();
  return { answer, closing: closing! };
}

test('--accept-grace: an order whose connection the kernel queued while the process stalled is served, not reset', async () => {
  const gw = await gatewayAt('3.12.0', upstream.url, ['--accept-grace', '20000', '--rate-limit', 'off']);
  const { answer, closing } = await queuedOrder(gw, 'before the stall');
  assert.is(answer, 'HTTP/1.1 200 OK');
  await closing;
  assert.ok(await refuses(gw.url), 'the listener is closed once quiet');
});

test('default settings: an order the kernel had queued when the stop began is served, not reset (a balancer cannot retry a POST)', async () => {
  // No --accept-grace: what an operator runs by default (gatewayAt would pass 0).
  const gw = await startGateway(readConfig(['--port', '0', '--upstream', `exchange=${upstream.url}`, '--release', '3.12.0', '--rate-limit', 'off'], {}), { logger: createLogger('silent') });
  const { answer, closing } = await queuedOrder(gw, 'after the stall');
  assert.is(answer, 'HTTP/1.1 200 OK', 'the queued order was reset by a listener closed at once');
  await closing;
  assert.ok(await refuses(gw.url), 'the listener is closed once quiet');
});

test('--accept-grace bounds the hand-over: traffic that never stops cannot hold the listener open past it', async () => {
  const lines: string[] = [];
  const gw = await gatewayAt('3.12.0', upstream.url, ['--accept-grace', '1000'], { logger: createLogger('info', (l) => lines.push(l)) });
  const started = performance.now();
  let closed = false;
  const closing = gw.close().then(() => { closed = true; });
  // A new connection every ~20 ms until the gateway has stopped, for at most the grace (1 s) plus a
  // generous allowance for a loaded machine: a bound, not a speed claim.
  while (!closed && performance.now() - started < 1000 + 5000) {
    await once(`${gw.url}/api/v3/ping`, 'GET').catch(() => undefined);
    await sleep(20);
  }
  assert.ok(closed, `still handing over ${(performance.now() - started).toFixed(0)} ms into steady traffic; --accept-grace is 1000`);
  await closing;
  assert.ok(await refuses(gw.url), 'the listener is closed');
  assert.ok(lines.some((l) => /stopping: listener closed after \d+ ms/.test(l)), lines.join('\n'));
});

test('--workers: a worker whose event loop stops is replaced and the gateway keeps serving', async () => {
  // --worker-stall 2000: at 800 ms a busy machine delayed a live worker's heartbeats past it, and its
  // replacement reset the test's connections.
  const gw = await startGatewayProcess(['--upstream', `exchange=${upstream.url}`, '--workers', '2', '--worker-stall', '2000', '--log-level', 'warn']);
  try {
    const workers = () => childPids(gw.child.pid!);
    const before = workers();
    assert.is(before.length, 2);
    process.kill(before[0], 'SIGSTOP'); // a frozen event loop: no heartbeats, no answers
    let after = before;
    for (let i = 0; i < 150 && after.includes(before[0]); i++) {
      await sleep(100);
      after = workers();
    }
    assert.not.ok(after.includes(before[0]), 'the stalled worker must be killed');
    for (let i = 0; i < 150 && after.length < 2; i++) {
      await sleep(100);
      after = workers();
    }
    assert.is(after.length, 2, 'a replacement worker must start');
    // Log lines are written in batches (up to 1 s): the line may follow the replacement.
    for (let i = 0; i < 50 && !/event loop blocked for more than 2000 ms; replacing it/.test(gw.output()); i++) await sleep(100);
    assert.match(gw.output(), /event loop blocked for more than 2000 ms; replacing it/);
    // A keep-alive connection the killed worker held dies with it (an HTTP client sees that as a
    // reset); the gateway itself serves on: new connections, each closed after its answer, all 200.
    const ping = () => new Promise<number>((resolve, reject) => {
      get(`${gw.url}/api/v3/ping`, { agent: false, timeout: 5000 }, (res) => { res.resume(); resolve(res.statusCode ?? 0); })
        .on('timeout', function (this: ClientRequest) { this.destroy(new Error('no answer in 5 s')); }).on('error', reject);
    });
    for (let i = 0; i < 50 && (await ping().catch(() => 0)) !== 200; i++) await sleep(100);
    for (let i = 0; i < 6; i++) assert.is(await ping(), 200);
  } finally {
    await gw.stop();
  }
});

test.run();
