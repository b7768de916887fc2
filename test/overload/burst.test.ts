// Bursts are served, not refused: 1 000 concurrent GETs at one route of a healthy upstream all
// answer 200, waiting their turn in the route's queue while its limit grows to its ceiling.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import type { RunningGateway } from '../../src/server.js';
import { gatewayAt } from '../support/gateway.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { burst, count, percentile } from './load.js';

const test = suite('overload: a burst at a healthy route');
let upstream: Upstream;
let gw: RunningGateway;

const CEILING = 128; // half of --upstream-connections 256, the default
test.before(async () => {
  upstream = await startUpstream();
  gw = await gatewayAt('3.12.0', upstream.url, ['--rate-limit', 'off', '--upstream-connections', '256']);
});
test.after(async () => {
  await gw.close(0);
  await upstream.stop();
});

test('1 000 concurrent GETs, upstream answering in 20 ms: 1 000 × 200, p99 within the queueing the pool implies', async () => {
  // The reference, measured here: the same burst at an upstream that answers at once (another
  // route, so its limit learns its own latency) is what the gateway and this client cost.
  await burst(gw.url, '/api/v3/time', 200); // warm: modules loaded, code compiled
  const first = await burst(gw.url, '/api/v3/time', 1000);
  assert.equal(count(first), { 200: 1000 });
  // The route's limit, read while the burst runs: it grows while the upstream keeps up, and may
  // shrink again by the end when other work on the cores makes answers late (the limiter cannot
  // tell a late answer from a slow upstream: 16 at the end once, at load average 5).
  let peak = 0;
  let within = false;
  const attempts: string[] = [];
  // A timing taken while other work holds the cores is noise, not the gateway: up to three tries
  // (a reference, the burst, the reference again), the first within its bound passes. A queue that
  // does not drain, or serves one request at a time, misses the bound on every try.
  for (let attempt = 1; attempt <= 3; attempt++) {
    const fast = attempt === 1 ? first : await burst(gw.url, '/api/v3/time', 1000);
    let polling = true;
    const poller = (async () => {
      while (polling) {
        peak = Math.max(peak, limitOf(await (await fetch(`${gw.url}/_gateway/metrics`, { signal: AbortSignal.timeout(10_000) })).text()));
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const slow = await burst(gw.url, '/api/v3/ping', 1000, { 'x-test-delay-ms': '20' });
    polling = false;
    await poller;
    assert.equal(count(slow), { 200: 1000 }, 'every request of the burst is served');
    // The reference again, after: with other work on the two cores a burst's own CPU time moves
    // between runs (2.5x seen beside two busy loops), so the larger of the two references counts.
    const fastAfter = await burst(gw.url, '/api/v3/time', 1000);
    // At most CEILING at the upstream at once: the last of 1 000 waits ceil(1000 / 128) = 8 rounds
    // of 20 ms behind the others. The limit starts at 20 and grows while the upstream keeps up, so
    // allow twice the rounds, on top of three times what the instant burst took: the delayed burst
    // costs more CPU than the instant one (the queue's bookkeeping, 1 000 timers at the upstream), and
    // with the CPU scarce that cost is time, the more so the scarcer (beside two busy loops: p99 2 850 ms
    // against instant 1 508 / 1 499, 1.9x; in CI's loaded run 2.4-2.5x on all three tries, 9 513 ms
    // against 3 948). Quiet: p99 628 ms, instant 595 / 655 ms. Serving one request at a time would
    // take 1 000 x 20 ms = 20 s on top of the gateway's own cost: past this bound quiet or loaded.
    const rounds = Math.ceil(1000 / CEILING);
    const reference = Math.max(percentile(fast, 99), percentile(fastAfter, 99));
    const bound = 3 * reference + 2 * rounds * 20 + 100;
    const p99 = percentile(slow, 99);
    attempts.push(`p99 ${p99.toFixed(0)} ms (instant upstream ${percentile(fast, 99).toFixed(0)} / ${percentile(fastAfter, 99).toFixed(0)} ms; bound ${bound.toFixed(0)} ms)`);
    console.log(`burst of 1 000, try ${attempt}: ${attempts.at(-1)}`);
    within = p99 < bound;
    if (within) break;
  }
  assert.ok(within, `the burst's p99 missed its bound on every try: ${attempts.join('; ')}`);
  const metrics = await (await fetch(`${gw.url}/_gateway/metrics`)).text();
  assert.match(metrics, /gateway_route_concurrency_limit\{method="GET",route="\/api\/v3\/ping",release="3.12.0"\} \d+/);
  assert.match(metrics, /gateway_route_queue_depth\{method="GET",route="\/api\/v3\/ping",release="3.12.0"\} 0/);
  const limit = limitOf(metrics);
  console.log(`route limit: at most ${peak} during the burst, ${limit} after (starts at 20, ceiling ${CEILING})`);
  assert.ok(peak > 20 && peak <= CEILING, `the limit grew under the burst: at most ${peak} (starts at 20)`);
  assert.ok(limit >= 1 && limit <= CEILING, `the limit after the burst: ${limit}`);
});

/** The /api/v3/ping route's concurrency limit in a metrics text. */
function limitOf(metrics: string): number {
  return Number(/gateway_route_concurrency_limit\{method="GET",route="\/api\/v3\/ping"[^}]*\} (\d+)/.exec(metrics)?.[1] ?? 0);
}

test.run();
