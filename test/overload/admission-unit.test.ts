// The adaptive limit (Gradient2 with AIMD back-off) and one route's gate (limit + bounded queue),
// driven directly: latencies are given, not measured, so each rule is checked exactly.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { GradientLimit } from '../../src/gateway/admission/gradient-limit.js';
import { RouteGate, type AdmissionSettings } from '../../src/gateway/admission/route-gate.js';
import { RefusalSummary } from '../../src/gateway/overload/refusal-summary.js';
import { ClientGone, GatewayError, SummarisedRefusal } from '../../src/gateway/errors.js';
import type { Cancellation } from '../../src/upstream/proxy.js';

const test = suite('admission: adaptive limit and route gate');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a steady latency under full load grows the limit up to its ceiling, and no further', () => {
  const l = new GradientLimit(20, 1, 128);
  let before = l.limit;
  for (let i = 0; i < 20; i++) l.sample(20, l.limit, false);
  assert.ok(l.limit > before, `grew: ${before} → ${l.limit}`);
  for (let i = 0; i < 500; i++) l.sample(20, l.limit, false);
  assert.is(l.limit, 128);
  before = l.limit;
  l.sample(20, 128, false);
  assert.is(l.limit, before);
});

test('requests below half the limit teach nothing (the upstream is not what limits them)', () => {
  const l = new GradientLimit(40, 1, 128);
  for (let i = 0; i < 100; i++) l.sample(i % 2 ? 20 : 400, 5, false);
  assert.is(l.limit, 40);
});

test('latency rising past 1.5× its average shrinks the limit; back to normal it grows again', () => {
  const l = new GradientLimit(100, 1, 128);
  for (let i = 0; i < 50; i++) l.sample(20, 100, false); // the baseline: 20 ms
  const steady = l.limit;
  for (let i = 0; i < 10; i++) l.sample(200, l.limit, false); // 10× slower: gradient 0.5
  const shrunk = l.limit;
  assert.ok(shrunk < steady * 0.6, `shrank: ${steady} → ${shrunk}`);
  // 25 ms is within the tolerance of a 20 ms baseline: not queueing, so no shrinking.
  const l2 = new GradientLimit(60, 1, 128);
  for (let i = 0; i < 50; i++) l2.sample(20, 60, false);
  const before = l2.limit;
  for (let i = 0; i < 10; i++) l2.sample(25, l2.limit, false);
  assert.ok(l2.limit >= before, `a 25 % rise tolerated: ${before} → ${l2.limit}`);
  for (let i = 0; i < 300; i++) l.sample(20, l.limit, false);
  assert.ok(l.limit > shrunk, `recovered: ${shrunk} → ${l.limit}`);
});

test('a timed-out request backs the limit off by 10 % (at least one), never below the minimum', () => {
  const l = new GradientLimit(50, 2, 128);
  l.sample(0, 50, true);
  assert.is(l.limit, 45);
  for (let i = 0; i < 100; i++) l.sample(0, 1, true);
  assert.is(l.limit, 2);
  l.bound(1, 10);
  for (let i = 0; i < 100; i++) l.sample(5, l.limit, false);
  assert.is(l.limit, 10, 'a new ceiling bounds the estimate');
});

const settings: AdmissionSettings = { ceiling: 4, queue: 3, queueWaitMs: 150 };
function gateWith(s = settings): { gate: RouteGate; lines: string[]; summary: RefusalSummary } {
  const lines: string[] = [];
  const summary = new RefusalSummary({ warn: (m) => lines.push(m) }, 50);
  return { gate: new RouteGate('GET /api/v3/ping', s, summary), lines, summary };
}
/** Take a slot the way the pipeline does: the fast path, else wait. */
async function take(gate: RouteGate, c: Cancellation = { gone: false }): Promise<void> {
  if (gate.inflight < gate.limit.limit) gate.inflight++;
  else await gate.wait(c);
}

test('the gate: requests past the limit wait in order and get each freed slot; a full queue sheds at once', async () => {
  const { gate, lines, summary } = gateWith();
  for (let i = 0; i < 4; i++) await take(gate);
  assert.is(gate.inflight, 4);
  const order: number[] = [];
  const waiting = [1, 2, 3].map((n) => take(gate).then(() => order.push(n)));
  assert.is(gate.queued, 3);
  const t0 = performance.now();
  const refused = await take(gate).then(() => null, (e: unknown) => e);
  assert.ok(refused instanceof SummarisedRefusal && refused.status === 503, `queue full: ${String(refused)}`);
  assert.ok(performance.now() - t0 < 50, 'shed at once, not after the wait');
  assert.match((refused as GatewayError).message, /queue is full/);
  assert.is((refused as GatewayError).headers['retry-after'], '1');
  for (let i = 0; i < 3; i++) gate.release(performance.now() - 5, null, { gone: false });
  await Promise.all(waiting);
  assert.equal(order, [1, 2, 3]);
  assert.is(gate.queued, 0);
  assert.is(gate.inflight, 4);
  summary.flush();
  assert.is(lines.length, 1);
  assert.match(lines[0], /^503 overloaded × 1 in the last [\d.]+ s on GET \/api\/v3\/ping: /);
});

test('the gate: a request waits no longer than the queue wait, then 503 + Retry-After; a cancelled one leaves the queue', async () => {
  const { gate } = gateWith();
  for (let i = 0; i < 4; i++) await take(gate);
  const t0 = performance.now();
  const late = await take(gate).then(() => null, (e: unknown) => e);
  const waited = performance.now() - t0;
  assert.ok(late instanceof SummarisedRefusal, String(late));
  assert.ok(waited >= 140 && waited < 1000, `waited ${waited.toFixed(0)} ms for a queue wait of 150`);
  assert.match((late as GatewayError).message, /waited 150 ms/);
  assert.is(gate.shed, 1);
  const c: Cancellation = { gone: false };
  const gone = take(gate, c).then(() => null, (e: unknown) => e);
  assert.is(gate.queued, 1);
  c.gone = true;
  c.reason = new ClientGone();
  c.cancel!(c.reason);
  assert.ok((await gone) instanceof ClientGone);
  assert.is(gate.queued, 0);
  // A client leaving says nothing of the upstream: the limit is unchanged.
  const before = gate.limit.limit;
  gate.release(performance.now(), new ClientGone(), c);
  assert.is(gate.limit.limit, before);
  gate.release(performance.now(), new Error('upstream reset'), { gone: false });
  assert.ok(gate.limit.limit < before, 'a failed request backs the limit off');
  await sleep(1);
});

test('refusal summary: a burst of 1 000 refusals on two routes is two lines per interval, with the counts', async () => {
  const lines: string[] = [];
  const s = new RefusalSummary({ warn: (m) => lines.push(m) }, 100);
  for (let i = 0; i < 1000; i++) s.count('503 overloaded', i % 4 ? 'GET /api/v3/ticker/price' : 'GET /api/v3/depth', 'queue full');
  assert.is(lines.length, 0, 'nothing before the interval ends');
  await sleep(150);
  assert.equal(lines.map((l) => l.replace(/last 0\.\d s/, 'last 0.1 s')).sort(), ['503 overloaded × 250 in the last 0.1 s on GET /api/v3/depth: queue full', '503 overloaded × 750 in the last 0.1 s on GET /api/v3/ticker/price: queue full']);
  await sleep(150);
  assert.is(lines.length, 2, 'a quiet interval writes nothing');
});

test('refusal summary: while refusals go on, each interval doubles; after a quiet one it starts again', async () => {
  const lines: string[] = [];
  const s = new RefusalSummary({ warn: (m) => lines.push(m) }, 50);
  const end = performance.now() + 700;
  while (performance.now() < end) {
    s.count('503 overloaded', 'GET /api/v3/ping', 'queue full');
    await sleep(5);
  }
  s.flush();
  // 50 + 100 + 200 + 400 ms ≥ 700: four lines for 0.7 s of refusals, not fourteen.
  assert.ok(lines.length >= 3 && lines.length <= 5, `${lines.length} lines: ${lines.join(' | ')}`);
  await sleep(1000);
  lines.length = 0;
  s.count('503 overloaded', 'GET /api/v3/ping', 'queue full');
  await sleep(90);
  assert.is(lines.length, 1, 'after a quiet spell the first interval is the short one again');
});

test.run();
