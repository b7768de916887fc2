// Counters in Redis, shared by every gateway process and machine using it (rate-limiter-flexible's
// fixed window: an atomic INCRBY per request keeps the combined count exact). While Redis cannot
// count (redis-connection.ts), fail open counts in this process and fail closed refuses.
import { createRequire } from 'node:module';
import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from '../../log.js';
import { redisConnection, type RedisConnection } from './redis-connection.js';
import { memoryCounter, type Count, type Counter, type CounterStore, type FailMode } from './store.js';

const require = createRequire(import.meta.url);

// Only the classes used: the package's index loads every store it supports (~4x the start-up time).
type LimiterClass = new (opts: Record<string, unknown>) => RateLimiterAbstract;
let resClass: (new () => RateLimiterRes) | undefined;

/** A refusal of the counter (over its points), as opposed to a store failure. */
function isRefusal(e: unknown): e is RateLimiterRes {
  resClass ??= require('rate-limiter-flexible/lib/RateLimiterRes.js') as new () => RateLimiterRes;
  return e instanceof resClass;
}

/** Redis through ioredis, with a deadline (`timeoutMs`) on every command; up() feeds a gauge. */
export function redisStore(url: string, fail: FailMode, logger: Logger, timeoutMs = 50): CounterStore {
  const fallback = fail === 'open' ? 'counting in this process until it answers again (--rate-limit-fail open)' : 'refusing rate-limited requests with 503 until it answers again (--rate-limit-fail closed)';
  const conn = redisConnection(url, fallback, logger, timeoutMs);
  const Limiter = require('rate-limiter-flexible/lib/RateLimiterRedis.js') as LimiterClass;
  return {
    name: conn.name,
    starting: conn.starting,
    up: conn.usable,
    counter: (prefix, limit, seconds) => redisCounter(conn, new Limiter({ storeClient: conn.client, keyPrefix: prefix, points: limit, duration: seconds }), limit, seconds, fail, logger),
    close: async () => conn.close(),
  };
}

/** One limit's counter in Redis, with this process's own count standing in while Redis cannot count (fail open). */
function redisCounter(conn: RedisConnection, rl: RateLimiterAbstract, limit: number, seconds: number, fail: FailMode, logger: Logger): Counter {
  let points = limit;
  let local: Counter | undefined; // fail open: this process's count while Redis is unusable
  const { usable } = conn;
  const here = () => (local ??= memoryCounter(points, seconds));
  const quiet = (what: string) => (e: unknown) => { conn.trouble(e); logger.debug(`rate limit ${what} failed: ${(e as Error).message}`); };
  const instead = (key: string, n: number, e: () => Error): Count | Promise<Count> =>
    fail === 'open' ? here().consume(key, n) : Promise.reject(e());
  return {
    consume: (key, n) => {
      if (!usable()) return instead(key, n, () => new Error(conn.why()));
      return rl.consume(key, n).then(
        (r) => {
          conn.answered();
          return { refused: false, used: r.consumedPoints, msBeforeNext: r.msBeforeNext };
        },
        (e: unknown) => {
          if (!isRefusal(e)) {
            const failed = conn.trouble(e); // a timeout marks Redis silent, whichever the fail mode
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
}
