// Reloads with traffic keep the live heap flat (issue 22 finding 1): 200 swaps of a program compiled
// from the catalogue on disk, each followed by a rate-limited request. The 1 000-reload run with a
// changing catalogue is test/soak/reload-memory.soak.ts.
import { reloadHeapSuite, swapFromDisk } from './reload-heap.js';

reloadHeapSuite('rate limiter: no program outlives its reload', '200 reloads, each followed by a rate-limited request: live heap flat', 200, swapFromDisk);
