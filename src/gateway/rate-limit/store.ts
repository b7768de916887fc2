// Where the counters live: in this process (default), or in Redis so that several gateway processes
// or machines share one budget (the way Kong and APISIX share limits). Both are rate-limiter-flexible
// fixed-window counters; with Redis an atomic INCRBY per request keeps the combined count exact.
//
// Redis unreachable or silent past its deadline: with `fail: 'open'` (default) every counter falls
// back to an in-process one and one warning line says so; counting moves back to Redis once it
// answers again (redis-store.ts). With `fail: 'closed'` the limiter refuses instead (refusals.ts).

/** A request's charge against one key: counted, or refused (and then not counted at all). */
export interface Count {
  refused: boolean;
  /** Used in the window after this charge (before it, when refused). */
  used: number;
  /** Until the window ends. */
  msBeforeNext: number;
}

/** One limit's counters, one per key (the egress IP, an account…). */
export interface Counter {
  /** Synchronous in this process; a promise when the count lives elsewhere. */
  consume(key: string, points: number): Count | Promise<Count>;
  /** Take back points charged for a request that was then not forwarded. */
  reward(key: string, points: number): void;
  /** Add points the upstream counted and we did not. */
  penalty(key: string, points: number): void;
  /** Full until `seconds` from now (the upstream refused the key). */
  block(key: string, seconds: number): void;
  /** Points per window from now on (a reload changed the limit); counts so far stay. */
  resize(points: number): void;
}

export interface CounterStore {
  /** A counter family: `points` per `seconds`-long window, one count per key. */
  counter(prefix: string, points: number, seconds: number): Counter;
  /** For messages and logs: memory, or the Redis URL without its password. */
  readonly name: string;
  /** Until the store first answers (or fails): a promise to wait for, so early requests are counted where all others are. */
  starting(): Promise<void> | null;
  /** False while the store cannot count (Redis unreachable or unresponsive): the fallback applies. */
  up(): boolean;
  close(): Promise<void>;
}

export type FailMode = 'open' | 'closed';

/**
 * In this process: a fixed window per key in a Map, synchronous. rate-limiter-flexible's
 * RateLimiterMemory counts the same way but answers through a promise, and awaiting one per
 * request cost the hot path more than the 5 % it may take (bench/rate-limit.ts); it is also the
 * Redis store's fallback under --rate-limit-fail open.
 */
export function memoryStore(): CounterStore {
  return { name: 'memory', starting: () => null, up: () => true, counter: (_prefix, points, seconds) => memoryCounter(points, seconds), close: async () => {} };
}

export function memoryCounter(limit: number, seconds: number): Counter {
  const windows = new Map<string, { used: number; resetAt: number }>();
  const windowOf = (key: string, now: number) => {
    let w = windows.get(key);
    if (!w || w.resetAt <= now) {
      if (!w && windows.size >= 10_000) for (const [k, x] of windows) if (x.resetAt <= now) windows.delete(k); // keys of past windows
      windows.set(key, (w = { used: 0, resetAt: now + seconds * 1000 }));
    }
    return w;
  };
  return {
    consume(key, points) {
      const now = Date.now();
      const w = windowOf(key, now);
      const refused = w.used + points > limit;
      if (!refused) w.used += points;
      return { refused, used: w.used, msBeforeNext: w.resetAt - now };
    },
    reward(key, points) {
      const w = windows.get(key);
      if (w) w.used = Math.max(0, w.used - points);
    },
    penalty(key, points) {
      windowOf(key, Date.now()).used += points;
    },
    block(key, secs) {
      windows.set(key, { used: limit + 1, resetAt: Date.now() + secs * 1000 });
    },
    resize(points) {
      limit = points;
    },
  };
}
