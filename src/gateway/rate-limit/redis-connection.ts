// The rate limiter's Redis connection and its deadlines. Three ways Redis can fail a request, each
// answered at once by the store's fallback (--rate-limit-fail):
//   - not connected: commands never queue (enableOfflineQueue: false), the counter does not even try;
//   - connected but silent (a stopped or swamped Redis keeps its TCP connection): a command unanswered
//     within `timeoutMs` (ioredis commandTimeout) marks Redis unresponsive; until a probe (PING) is
//     answered again, counters skip Redis, so only the request that found out waited `timeoutMs`;
//   - an error answer: that request falls back.
// One log line when Redis becomes unusable, one when it is usable again.
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { Logger } from '../../log.js';
import { shown } from '../../setting-values.js';
import { redisOptions } from '../../redis-options.js';

export interface RedisConnection {
  client: Redis;
  /** The URL without its password, for messages and logs. */
  name: string;
  /** Whether Redis can count now (connected, and not silent past the deadline). */
  usable(): boolean;
  /** A command failed: a timeout marks Redis silent until a PING is answered again. Returns the error. */
  trouble(e: unknown): Error;
  /** Why Redis is not usable, for a refusal. */
  why(): string;
  /** A command was answered: ends an outage an error event began that no reconnection ended. */
  answered(): void;
  /** Until Redis first answers (or fails, or 2 s pass): a promise to wait for. */
  starting(): Promise<void> | null;
  close(): void;
}

const require = createRequire(import.meta.url);

/** `fallback`: what the store does meanwhile, for the outage line. */
export function redisConnection(url: string, fallback: string, logger: Logger, timeoutMs: number): RedisConnection {
  const { Redis: Client } = require('ioredis') as typeof import('ioredis');
  const name = shown(url, true); // without its password
  const client = new Client(url, redisOptions(timeoutMs)); // keeps reconnecting: counting returns to Redis when it is back
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
  // The gateway listens before the connection is up; the first requests wait for it (bounded)
  // instead of being counted in this process alone.
  let starting: Promise<void> | null = new Promise<void>((resolve) => {
    client.once('ready', resolve);
    client.once('error', resolve);
    setTimeout(resolve, 2000).unref();
  }).then(() => { starting = null; });
  return {
    client, name, usable,
    trouble(e) {
      if ((e as Error)?.message === TIMED_OUT) { // unanswered: skip Redis until a PING is answered within the deadline again
        wentDown(`no answer within ${timeoutMs} ms`);
        silent = true;
        probe();
      }
      return e as Error;
    },
    why: () => (silent ? `no answer within ${timeoutMs} ms` : 'not connected'),
    answered: () => { if (outage) cameBack(); },
    starting: () => starting,
    close() {
      closed = true;
      clearTimeout(probing);
      client.disconnect(false);
    },
  };
}

/** ioredis's rejection of a command unanswered within commandTimeout. */
const TIMED_OUT = 'Command timed out';
