// Where the counters live: in this process (default), or in Redis so that several gateway processes
// or machines share one budget (the way Kong and APISIX share limits). Both are rate-limiter-flexible
// fixed-window counters; with Redis an atomic INCRBY per request keeps the combined count exact.
//
// Redis unreachable: with `fail: 'open'` (default) every counter falls back to an in-process one
// (rate-limiter-flexible's insuranceLimiter) and one warning line says so; counting moves back to
// Redis once it answers again. With `fail: 'closed'` the limiter refuses instead (see hook.ts).
import { createRequire } from 'node:module';
import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from '../../log.js';

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
}

export interface CounterStore {
  /** A counter family: `points` per `seconds`-long window, one count per key. */
  counter(prefix: string, points: number, seconds: number): Counter;
  /** For messages and logs: memory, or the Redis URL without its password. */
  readonly name: string;
  /** Until the store first answers (or fails): a promise to wait for, so early requests are counted where all others are. */
  starting(): Promise<void> | null;
  close(): Promise<void>;
}

export type FailMode = 'open' | 'closed';

const require = createRequire(import.meta.url);

// Only the classes used: the package's index loads every store it supports (~4x the start-up time).
type LimiterClass = new (opts: Record<string, unknown>) => RateLimiterAbstract;
let memoryClass: LimiterClass | undefined;
const Memory = () => (memoryClass ??= require('rate-limiter-flexible/lib/RateLimiterMemory.js') as LimiterClass);
let resClass: (new () => RateLimiterRes) | undefined;

/** A refusal of the counter (over its points), as opposed to a store failure. */
function isRefusal(e: unknown): e is RateLimiterRes {
  resClass ??= require('rate-limiter-flexible/lib/RateLimiterRes.js') as new () => RateLimiterRes;
  return e instanceof resClass;
}

/**
 * In this process: a fixed window per key in a Map, synchronous. rate-limiter-flexible's
 * RateLimiterMemory counts the same way but answers through a promise, and awaiting one per
 * request cost the hot path more than the 5 % it may take (bench/rate-limit.ts); it stays the
 * fallback of the Redis store, where a promise is unavoidable anyway.
 */
export function memoryStore(): CounterStore {
  return { name: 'memory', starting: () => null, counter: (_prefix, points, seconds) => memoryCounter(points, seconds), close: async () => {} };
}

function memoryCounter(limit: number, seconds: number): Counter {
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
  };
}

/** rate-limiter-flexible's counter behind the Counter interface (it counts refused requests too: taken back here). */
function flexibleCounter(rl: RateLimiterAbstract, log: (m: string) => void): Counter {
  const quiet = (what: string) => (e: unknown) => log(`rate limit ${what} failed: ${(e as Error).message}`);
  return {
    consume: (key, points) => rl.consume(key, points).then(
      (r) => ({ refused: false, used: r.consumedPoints, msBeforeNext: r.msBeforeNext }),
      (e: unknown) => {
        if (!isRefusal(e)) throw e;
        rl.reward(key, points).catch(quiet('refund'));
        return { refused: true, used: e.consumedPoints - points, msBeforeNext: e.msBeforeNext };
      },
    ),
    reward: (key, points) => { rl.reward(key, points).catch(quiet('refund')); },
    penalty: (key, points) => { rl.penalty(key, points).catch(quiet('penalty')); },
    block: (key, secs) => { rl.block(key, secs).catch(quiet('block')); },
  };
}

/**
 * Redis through ioredis. Commands never queue while disconnected (enableOfflineQueue: false) and
 * the limiter does not even try when the connection is not ready (rejectIfRedisNotReady): a request
 * never waits for a Redis that is gone, it falls back (or is refused) at once.
 */
export function redisStore(url: string, fail: FailMode, logger: Logger): CounterStore {
  const { Redis } = require('ioredis') as typeof import('ioredis');
  const Limiter = require('rate-limiter-flexible/lib/RateLimiterRedis.js') as LimiterClass;
  const name = redact(url);
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(100 * times, 2000), // keep trying: counting returns to Redis when it is back
  });
  let down = false;
  const fallback = fail === 'open' ? 'counting in this process until it answers again (--rate-limit-fail open)' : 'refusing rate-limited requests with 503 until it answers again (--rate-limit-fail closed)';
  client.on('error', (e: Error) => {
    if (down) return; // one line per outage, not one per reconnection attempt
    down = true;
    logger.warn(`rate-limit store ${name} unreachable (${e.message}); ${fallback}`);
  });
  client.on('ready', () => {
    if (down) logger.info(`rate-limit store ${name} reachable again; counting there`);
    down = false;
  });
  // The gateway listens before the connection is up; the first requests wait for it (bounded)
  // instead of being counted in this process alone.
  let starting: Promise<void> | null = new Promise<void>((resolve) => {
    client.once('ready', resolve);
    client.once('error', resolve);
    setTimeout(resolve, 2000).unref();
  }).then(() => { starting = null; });
  return {
    name,
    starting: () => starting,
    counter: (prefix, points, seconds) => flexibleCounter(new Limiter({
      storeClient: client, keyPrefix: prefix, points, duration: seconds, rejectIfRedisNotReady: true,
      insuranceLimiter: fail === 'open' ? new (Memory())({ keyPrefix: prefix, points, duration: seconds }) : undefined,
    }), (m) => logger.debug(m)),
    close: async () => {
      client.disconnect(false);
    },
  };
}

/** The URL as safe to log: without its password. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}
