// The 200-swap run of test/rate-limit/reload-heap.test.ts (which makes 40 in npm test): with the
// same bound (at most 5 programs' worth of growth), 200 swaps also catch a leak of one program
// every few reloads. Here because each swap loads and compiles the catalogue: 200 of them were 6 s
// of npm test's CPU.
import { reloadHeapSuite, swapFromDisk } from '../rate-limit/reload-heap.js';

reloadHeapSuite('rate limiter: no program outlives its reload (soak)', '200 reloads, each followed by a rate-limited request: live heap flat', 200, swapFromDisk);
