// The builder pool's defaults, stated once: the pool falls back to them when built without options
// (tests, embedders), and settings.ts offers them as the CLI's defaults. No heavy imports here:
// settings.ts loads this at every start-up.
import { availableParallelism } from 'node:os';

export const DEFAULT_DEADLINE_MS = 10_000;
export const DEFAULT_QUEUE_PER_THREAD = 8;

/** One core is left to the request loop. */
export function defaultThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}
