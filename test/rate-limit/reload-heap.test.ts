// Reloads with traffic keep the live heap flat (issue 22 finding 1): 40 swaps of a program compiled
// from the catalogue on disk, each followed by a rate-limited request; a program kept per reload
// would be 40 against the 5 allowed. The 200-swap run of the same check (catches a leak of one
// program every few reloads) is test/soak/reload-heap.soak.ts; the 1 000-reload run with a changing
// catalogue is test/soak/reload-memory.soak.ts.
import { reloadHeapSuite, swapFromDisk } from './reload-heap.js';

reloadHeapSuite('rate limiter: no program outlives its reload', '40 reloads, each followed by a rate-limited request: live heap flat', 40, swapFromDisk);
