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

export interface CounterStore {
  /** A counter family: `points` per `seconds`-long window, one count per key. */
  counter(prefix: string, points: number, seconds: number): RateLimiterAbstract;
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
export function isRefusal(e: unknown): e is RateLimiterRes {
  resClass ??= require('rate-limiter-flexible/lib/RateLimiterRes.js') as new () => RateLimiterRes;
  return e instanceof resClass;
}

export function memoryStore(): CounterStore {
  return {
    name: 'memory',
    starting: () => null,
    counter: (prefix, points, seconds) => new (Memory())({ keyPrefix: prefix, points, duration: seconds }),
    close: async () => {},
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
    counter: (prefix, points, seconds) => new Limiter({
      storeClient: client, keyPrefix: prefix, points, duration: seconds, rejectIfRedisNotReady: true,
      insuranceLimiter: fail === 'open' ? new (Memory())({ keyPrefix: prefix, points, duration: seconds }) : undefined,
    }),
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
