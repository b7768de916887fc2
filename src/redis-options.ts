// How the gateway talks to Redis, stated once for the rate limiter's counters and the fleet's records:
// a command is never queued while Redis is away (the caller falls back at once), never retried, and
// given a deadline; the connection itself keeps being retried, up to every 2 s, so each comes back
// on its own when Redis does.
import type { RedisOptions } from 'ioredis';

export function redisOptions(commandTimeoutMs: number | undefined): RedisOptions {
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    commandTimeout: commandTimeoutMs,
    retryStrategy: (times) => Math.min(100 * times, 2000),
  };
}
