// Where the counters live: in this process (default), or in Redis so that several gateway processes
// or machines share one budget (the way Kong and APISIX share limits). Both are rate-limiter-flexible
// fixed-window counters; with Redis an atomic INCRBY per request keeps the combined count exact.
//
// Redis unreachable or silent past its deadline: with `fail: 'open'` (default) every counter falls
// back to an in-process one and one warning line says so; counting moves back to Redis once it
// answers again. With `fail: 'closed'` the limiter refuses instead (see hook.ts).
import { shown } from '../../setting-values.js';
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

const require = createRequire(import.meta.url);

// Only the classes used: the package's index loads every store it supports (~4x the start-up time).
type LimiterClass = new (opts: Record<string, unknown>) => RateLimiterAbstract;
let resClass: (new () => RateLimiterRes) | undefined;

/** A refusal of the counter (over its points), as opposed to a store failure. */
function isRefusal(e: unknown): e is RateLimiterRes {
  resClass ??= require('rate-limiter-flexible/lib/RateLimiterRes.js') as new () => RateLimiterRes;
  return e instanceof resClass;
}

/**
 * In this process: a fixed window per key in a Map, synchronous. rate-limiter-flexible's
 * RateLimiterMemory counts the same way but answers through a promise, and awaiting one per
 * request cost the hot path more than the 5 % it may take (bench/rate-limit.ts); it is also the
 * Redis store's fallback under --rate-limit-fail open.
 */
export function memoryStore(): CounterStore {
  return { name: 'memory', starting: () => null, up: () => true, counter: (_prefix, points, seconds) => memoryCounter(points, seconds), close: async () => {} };
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
    resize(points) {
      limit = points;
    },
  };
}

/**
 * Redis through ioredis, with a deadline on every command. Three ways Redis can fail a request, each
 * answered at once by the fallback (--rate-limit-fail: open counts in this process, closed refuses):
 *   - not connected: commands never queue (enableOfflineQueue: false), the counter does not even try;
 *   - connected but silent (a stopped or swamped Redis keeps its TCP connection): a command unanswered
 *     within `timeoutMs` (ioredis commandTimeout) marks Redis unresponsive; until a probe (PING) is
 *     answered again, counters skip Redis, so only the request that found out waited `timeoutMs`;
 *   - an error answer: that request falls back.
 * One log line when Redis becomes unusable, one when it is usable again; up() feeds a gauge.
 */
export function redisStore(url: string, fail: FailMode, logger: Logger, timeoutMs = 50): CounterStore {
  const { Redis } = require('ioredis') as typeof import('ioredis');
  const Limiter = require('rate-limiter-flexible/lib/RateLimiterRedis.js') as LimiterClass;
  const name = shown(url, true); // without its password
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    commandTimeout: timeoutMs,
    retryStrategy: (times) => Math.min(100 * times, 2000), // keep trying: counting returns to Redis when it is back
  });
  const fallback = fail === 'open' ? 'counting in this process until it answers again (--rate-limit-fail open)' : 'refusing rate-limited requests with 503 until it answers again (--rate-limit-fail closed)';
  let silent = false; // a command went unanswered: skip Redis until a probe is answered
  let outage = false; // the outage line was written (one per outage)
  let probing: NodeJS.Timeout | undefined;
  let closed = false;
  const usable = () => !silent && client.status === 'ready';
  const wentDown = (why: string) => {
    if (outage) return; // one line per outage, not one per request or reconnection attempt
    outage = true;
    logger.warn(`rate-limit store ${name} unreachable (${why}); ${fallback}`);
  };
  const cameBack = () => {
    if (!outage || !usable()) return;
    outage = false;
    logger.info(`rate-limit store ${name} reachable again; counting there`);
  };
  // Connection errors; a command's own timeout is handled where it is awaited (ioredis may also emit it).
  client.on('error', (e: Error) => { if (e.message !== TIMED_OUT) wentDown(e.message); });
  client.on('ready', cameBack);
  /** A command went unanswered: skip Redis until a PING is answered within the deadline again. */
  const unresponsive = () => {
    wentDown(`no answer within ${timeoutMs} ms`);
    silent = true;
    probe();
  };
  function probe(): void {
    if (probing || closed) return;
    probing = setTimeout(() => {
      client.ping().then(() => {
        probing = undefined;
        silent = false;
        cameBack();
      }, () => {
        probing = undefined;
        probe();
      });
    }, Math.max(100, 4 * timeoutMs));
    probing.unref();
  }
  const trouble = (e: unknown) => {
    if ((e as Error)?.message === TIMED_OUT) unresponsive();
    return e as Error;
  };
  const why = () => (silent ? `no answer within ${timeoutMs} ms` : 'not connected');
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
    up: usable,
    counter: (prefix, limit, seconds) => {
      let points = limit;
      const rl = new Limiter({ storeClient: client, keyPrefix: prefix, points, duration: seconds });
      let local: Counter | undefined; // fail open: this process's count while Redis is unusable
      const here = () => (local ??= memoryCounter(points, seconds));
      const quiet = (what: string) => (e: unknown) => { trouble(e); logger.debug(`rate limit ${what} failed: ${(e as Error).message}`); };
      const instead = (key: string, n: number, e: () => Error): Count | Promise<Count> =>
        fail === 'open' ? here().consume(key, n) : Promise.reject(e());
      return {
        consume: (key, n) => {
          if (!usable()) return instead(key, n, () => new Error(why()));
          return rl.consume(key, n).then(
            (r) => {
              if (outage) cameBack(); // an error event that was not followed by a reconnection
              return { refused: false, used: r.consumedPoints, msBeforeNext: r.msBeforeNext };
            },
            (e: unknown) => {
              if (!isRefusal(e)) {
                const failed = trouble(e); // a timeout marks Redis silent, whichever the fail mode
                return instead(key, n, () => failed);
              }
              rl.reward(key, n).catch(quiet('refund'));
              return { refused: true, used: e.consumedPoints - n, msBeforeNext: e.msBeforeNext };
            },
          );
        },
        reward: (key, n) => { if (usable()) rl.reward(key, n).catch(quiet('refund')); else local?.reward(key, n); },
        penalty: (key, n) => { if (usable()) rl.penalty(key, n).catch(quiet('penalty')); else if (fail === 'open') here().penalty(key, n); },
        block: (key, secs) => { if (usable()) rl.block(key, secs).catch(quiet('block')); else if (fail === 'open') here().block(key, secs); },
        resize: (n) => { rl.points = n; local?.resize(n); points = n; },
      };
    },
    close: async () => {
      closed = true;
      clearTimeout(probing);
      client.disconnect(false);
    },
  };
}

/** ioredis's rejection of a command unanswered within commandTimeout. */
const TIMED_OUT = 'Command timed out';
