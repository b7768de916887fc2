// A 300 MiB answer to a migrated route (its answer is rewritten: held in memory up to
// --migrated-answer-limit, default 8 MiB) against the same answer on a route nothing migrates
// (streamed through): the gateway's RSS stays within 64 MiB of the plain route's, /_gateway/health
// answers throughout, and the client gets its answer or a 502/504 within the request deadline.
// The gateway is the CLI in a process of its own, run as users run it.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { largeUpstream, type LargeUpstream } from '../support/large-upstream.js';
import { startGatewayProcess, type Proc } from '../support/processes.js';
import { rssMiB } from '../support/rss.js';

const test = suite('a 300 MiB answer to a migrated route (soak)');
const SIZE = 300 * 1024 * 1024;
const DEADLINE_MS = 10_000;
let upstream: LargeUpstream;
let gw: Proc & { url: string };

test.before(async () => {
  upstream = await largeUpstream();
  gw = await startGatewayProcess(['--release', '3.5.1,3.12.0', '--upstream', `exchange=${upstream.url}`, '--timeout', String(DEADLINE_MS), '--log-level', 'warn'], {}, []);
});
test.after(async () => {
  await gw?.stop();
  await upstream?.stop();
});

interface Run { status: number; bytes: number; ms: number; peakMiB: number; healthWorstMs: number; healthFailed: number }

/** One request read to its end (or its failure), with the gateway's peak RSS and /_gateway/health polled meanwhile. */
async function measure(path: string): Promise<Run> {
  const pid = gw.child.pid!;
  let peakMiB = rssMiB(pid);
  const sampler = setInterval(() => { peakMiB = Math.max(peakMiB, rssMiB(pid)); }, 25);
  let healthWorstMs = 0, healthFailed = 0, polling = true;
  const poll = (async () => {
    while (polling) {
      const t = performance.now();
      try {
        const h = await fetch(`${gw.url}/_gateway/health`, { signal: AbortSignal.timeout(3000) });
        await h.arrayBuffer();
        if (h.status !== 200) healthFailed++;
      } catch { healthFailed++; }
      healthWorstMs = Math.max(healthWorstMs, performance.now() - t);
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  const t0 = performance.now();
  let status = 0, bytes = 0;
  try {
    const res = await fetch(`${gw.url}${path}`, { headers: { 'x-mbx-apikey': 'k' }, signal: AbortSignal.timeout(60_000) });
    status = res.status;
    for await (const chunk of res.body!) bytes += (chunk as Uint8Array).length;
  } catch { status = -1; }
  const ms = performance.now() - t0;
  polling = false;
  await poll;
  clearInterval(sampler);
  return { status, bytes, ms, peakMiB, healthWorstMs, healthFailed };
}

test('300 MiB: RSS within 64 MiB of the plain route, health answers throughout, 502/504 or the answer within the deadline', async () => {
  upstream.set(SIZE, false);
  const plain = await measure('/@3.5.1/api/v3/exchangeInfo');
  assert.is(plain.status, 200);
  assert.is(plain.bytes, SIZE);
  const migrated = await measure('/@3.5.1/sapi/v1/margin/asset?asset=BTC');
  upstream.set(SIZE, true);
  const withLength = await measure('/@3.5.1/sapi/v1/margin/asset?asset=BTC');
  const figures = JSON.stringify({ plain, migrated, withLength });
  for (const m of [migrated, withLength]) {
    assert.ok([200, 502, 504].includes(m.status), `status ${m.status}: ${figures}`);
    assert.ok(m.ms < DEADLINE_MS + 1000, `answered after ${m.ms.toFixed(0)} ms: ${figures}`);
    assert.ok(m.peakMiB < plain.peakMiB + 64, `peak RSS ${m.peakMiB.toFixed(0)} MiB vs ${plain.peakMiB.toFixed(0)} MiB on the plain route: ${figures}`);
  }
  // Health answered within its 3 s bound on every poll; beside the migrated answer, within 1 s (beside
  // the plain one the test's own process, reading 300 MiB and serving it, is what delays the poll).
  for (const m of [plain, migrated, withLength]) assert.is(m.healthFailed, 0, `health unanswered: ${figures}`);
  for (const m of [migrated, withLength]) assert.ok(m.healthWorstMs < 1000, `health took ${m.healthWorstMs.toFixed(0)} ms: ${figures}`);
  console.log(`  ${figures}`);
});

test.run();
