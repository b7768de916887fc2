// Under --workers, a frozen worker (SIGSTOP: no heartbeats, no accepts, no answers) costs its
// clients at most its replacement: every request in flight or sent while it is frozen ends with an
// answer or a reset, none waits on; and the URL the gateway announced (--port 0) keeps serving after
// workers are replaced, even when all of them were. The deadlines compare with the same requests
// on the same gateway before the freeze, and with the moment the frozen worker was gone.
import { get } from 'node:http';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { childPids, startGatewayProcess, startUpstream, type Proc, type Upstream } from '../support/processes.js';

const test = suite('workers: a frozen worker');
let upstream: Upstream;
test.before(async () => { upstream = await startUpstream({}); });
test.after(async () => { await upstream.stop(); });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// Long enough that a busy machine's scheduling delay of a live worker's heartbeat is not taken for a
// stall (800 ms was, at load 22 on 2 cores); the frozen worker is detected all the same.
const STALL_MS = 2000;
/** A request still unsettled this long has been lost: far beyond stall limit + delays, even under load. */
const LOST_MS = 20_000;
const DELAY_MS = 1500;

interface Outcome { status?: number; error?: string; at: number }

/** One GET on a fresh connection; settles with the status or the error, and when (Date.now()). */
function request(url: string, delayMs = 0): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = get(`${url}/api/v3/ping`, { agent: false, headers: delayMs ? { 'x-test-delay-ms': String(delayMs) } : {} }, (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode, at: Date.now() }));
      res.once('error', (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message, at: Date.now() }));
    });
    req.setTimeout(LOST_MS, () => req.destroy(Object.assign(new Error('lost'), { code: 'LOST' })));
    req.once('error', (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message, at: Date.now() }));
  });
}

const workersOf = (gw: Proc): number[] => childPids(gw.child.pid!);

/** Poll until `done()`, at most `ms`; resolves with the time it became true (Date.now()), or NaN. */
async function until(done: () => boolean, ms: number): Promise<number> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(25)) if (done()) return Date.now();
  return NaN;
}

test('requests in flight on and sent to a frozen worker each get an answer or a reset by its replacement; the announced URL serves on', async () => {
  const gw = await startGatewayProcess(['--upstream', `exchange=${upstream.url}`, '--workers', '2', '--worker-stall', String(STALL_MS), '--log-level', 'warn']);
  try {
    const before = workersOf(gw);
    assert.is(before.length, 2);
    // Reference: the same delayed requests on the healthy gateway, now.
    const t0 = Date.now();
    const baseline = await Promise.all(Array.from({ length: 10 }, () => request(gw.url, DELAY_MS)));
    assert.equal(baseline.map((o) => o.status), Array(10).fill(200), `${JSON.stringify(baseline)}\n${gw.output()}`);
    const reference = Math.max(...baseline.map((o) => o.at)) - t0;

    const started = Date.now();
    const inFlight = Array.from({ length: 10 }, () => request(gw.url, DELAY_MS));
    await sleep(200); // accepted and waiting on the upstream
    // A loaded machine can have the primary replace a worker on its own (a late heartbeat): freeze one
    // that is still there.
    let frozen = before[0];
    for (let i = 0; ; i++) {
      try { process.kill(frozen, 'SIGSTOP'); break; } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ESRCH' || i === 20) throw e;
        await sleep(100);
        frozen = workersOf(gw)[0];
      }
    }
    const onTheWay = Array.from({ length: 10 }, () => request(gw.url));
    const gone = await until(() => !workersOf(gw).includes(frozen), 10 * STALL_MS);
    assert.ok(Number.isFinite(gone), 'the frozen worker is killed');
    const all = await Promise.all([...inFlight, ...onTheWay]);
    for (const [i, o] of all.entries()) {
      assert.ok(o.status === 200 || (o.error !== undefined && o.error !== 'LOST'), `request ${i}: ${JSON.stringify(o)}: neither an answer nor a reset`);
      // Served by the live worker (≈ the reference) or reset when the frozen one died.
      assert.ok(o.at - started <= Math.max(reference, gone - started) + reference, `request ${i} settled ${o.at - started} ms after the start; the frozen worker was gone after ${gone - started} ms, the same requests took ${reference} ms before`);
    }
    const answered = (await Promise.all(onTheWay)).filter((o) => o.status === 200).length;
    assert.is(answered, 10, 'connections opened while a worker is frozen are accepted by the live one');
    assert.ok(Number.isFinite(await until(() => workersOf(gw).length === 2, 60_000)), 'a replacement starts');
    for (let i = 0; i < 6; i++) assert.is((await request(gw.url)).status, 200, 'the announced URL');
  } finally {
    await gw.stop();
  }
});

test('--port 0: after every worker was replaced, the gateway still listens on the announced port', async () => {
  const gw = await startGatewayProcess(['--upstream', `exchange=${upstream.url}`, '--workers', '2', '--worker-stall', String(STALL_MS), '--log-level', 'warn']);
  try {
    const before = workersOf(gw);
    assert.is(before.length, 2);
    for (const pid of before) process.kill(pid, 'SIGSTOP'); // ESRCH here: a worker replaced on its own, under load
    assert.ok(Number.isFinite(await until(() => { const now = workersOf(gw); return now.length === 2 && !now.some((p) => before.includes(p)); }, 30_000)), 'both replaced');
    let first: Outcome = { at: 0 };
    for (let i = 0; i < 100 && first.status !== 200; i++) { first = await request(gw.url); if (first.status !== 200) await sleep(100); }
    assert.is(first.status, 200, `the announced URL ${gw.url} answers again: ${JSON.stringify(first)}`);
    for (let i = 0; i < 6; i++) assert.is((await request(gw.url)).status, 200);
  } finally {
    await gw.stop();
  }
});

test.run();
