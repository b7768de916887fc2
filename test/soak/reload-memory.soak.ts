// Issue 27: 1 000 reloads of a changing catalogue, each followed by requests (a rate-limited one
// among them), must not grow the gateway: everything a program holds goes with it. Measured after a
// full GC: RSS and live heap after 1 000 reloads against the same figures after the first 50, each
// taken at rest, as a gateway is between bursts of reloads: the loader thread ended (its own heap is
// ~70 MiB of RSS while it lives, and depends on its last load) and V8's memory reducer has run
// (heapTotal ~55 → ~22 MiB). Measured while loading, the same runs ranged +5.4 to +11.7 MiB.
// The gateway is the CLI in a process of its own, run as users run it (its full GC through the
// inspector): in the test's process its RSS also held the test's HTTP client and its buffers, and
// the figure ranged -0.8 to +10.5 MiB over runs of the same code.
import { rmSync } from 'node:fs';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { LOADER_IDLE_MS } from '../../src/catalogue/load-in-worker.js';
import { catalogueCopy, dirs, endpoint } from '../gateway/reload-load.js';
import { INSPECT_FLAG, memoryAfterGc, type Memory } from '../support/inspector.js';
import { startGatewayProcess, startUpstream, type Upstream } from '../support/processes.js';

const RELOADS = Number(process.env.RELOAD_SOAK_COUNT ?? 1000);
const test = suite('reload memory (soak)');
let upstream: Upstream;
test.before(async () => { upstream = await startUpstream({}, undefined, { ownProcess: true }); });
test.after(async () => {
  await upstream.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** After the loader thread's idle end and V8's memory reducer (it runs some seconds after allocation stops). */
async function atRest(pid: number, output: () => string): Promise<Memory> {
  await new Promise((r) => setTimeout(r, LOADER_IDLE_MS + 11_000));
  return memoryAfterGc(pid, output());
}

test(`${RELOADS} reloads with a changing catalogue and traffic: live heap after a full GC grows < 5 MiB, RSS < 10 MiB`, async () => {
  const cat = catalogueCopy();
  const gw = await startGatewayProcess(['--release', '3.12.0', '--upstream', `exchange=${upstream.url}`, '--catalogue', cat.dir, '--log-level', 'warn'], {}, [INSPECT_FLAG]);
  const { url } = gw;
  const pid = gw.child.pid!;
  const MiB = 1024 * 1024;
  let base: Memory | undefined;
  try {
    for (let n = 1; n <= RELOADS; n++) {
      cat.write(endpoint(n % 7) + endpoint(100 + (n % 5)));
      const reload = await fetch(`${url}/_gateway/reload`, { method: 'POST', signal: AbortSignal.timeout(30_000) });
      const outcome = await reload.json() as { ok: boolean };
      assert.ok(reload.status === 200 && outcome.ok, `reload ${n}: ${reload.status} ${JSON.stringify(outcome)}`);
      // A rate-limited route (weight from the catalogue) and the endpoint the edit added.
      for (const path of ['/api/v3/depth?symbol=BTCUSDT', `/api/v3/extra${n % 7}`]) {
        const res = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(10_000) });
        await res.arrayBuffer();
        assert.is(res.status, 200, path);
      }
      if (n === 50) base = await atRest(pid, gw.output);
    }
    const end = await atRest(pid, gw.output);
    const grew = { rss: (end.rss - base!.rss) / MiB, heap: (end.heap - base!.heap) / MiB };
    console.log(`after 50 reloads: RSS ${(base!.rss / MiB).toFixed(1)} MiB, heap ${(base!.heap / MiB).toFixed(1)} MiB; after ${RELOADS}: RSS +${grew.rss.toFixed(1)} MiB, heap +${grew.heap.toFixed(1)} MiB`);
    // Live heap is what a leak shows in (a program kept alive per reload was +1.5 MiB each). RSS also
    // holds what the allocator keeps: with a loader thread per reload it grew +8 to +11 MiB over 950
    // reloads; with one loader thread, at rest, the gateway alone +3.9 to +5.7 MiB (issue 27: < 10).
    assert.ok(grew.rss < 10, `RSS grew ${grew.rss.toFixed(1)} MiB over ${RELOADS - 50} reloads`);
    assert.ok(grew.heap < 5, `live heap grew ${grew.heap.toFixed(1)} MiB over ${RELOADS - 50} reloads`);
  } finally {
    await gw.stop();
  }
});

test.run();
