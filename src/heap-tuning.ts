// V8 heap tuning for a long-running gateway process.
//
// Allocation-site pretenuring: when most objects from one allocation site survive a young-generation
// GC, V8 starts allocating that site's objects straight into the old generation. At start-up the
// gateway builds its route tables (one per served release) and those objects do survive, so sites
// that later allocate per-request objects get tenured; per-request garbage then lands in the old
// generation, keeps young objects alive through old-to-new pointers, and every scavenge copies and
// promotes megabytes. Measured with `node --trace-gc-nvp` under bench/proxy.ts's load: with 44
// releases, 2.5 MB promoted per scavenge (3.5-7 ms pauses, ~17 µs of GC per request) against 50 KB
// and 0.9 ms with pretenuring off; one release: 240 KB → 50-90 KB. A gateway's long-lived data is
// built once at start-up or reload, so it loses nothing by allocating young first.
// A flag set at run time changes V8's flag hash, and node's internal modules loaded after it compile
// without their code cache (~1 ms for the eight perf_hooks modules that `performance.now()` loads):
// what start-up needs is loaded first (src/server.ts).
import { setFlagsFromString } from 'node:v8';

let applied = false;

/** Apply once, before the catalogue is loaded (decisions already taken are not undone). */
export function tuneHeapForServing(): void {
  if (applied) return;
  applied = true;
  setFlagsFromString('--no-allocation-site-pretenuring');
}
