// A fleet of replicas agreeing on one catalogue (--fleet redis://…). The gateway never ships a
// catalogue over Redis: each replica reads its own copy (a shared volume, a ConfigMap, a checkout).
// What goes through Redis is the catalogue's identity, its content hash:
//   - a reload a replica was asked for (SIGHUP, POST, --watch) that applied publishes its hash as the
//     fleet's target, and every other replica reloads from its own copy, swapping only if that copy
//     has the target's hash (otherwise it keeps its last good program, says so, and tries again as
//     its copy may still be on its way, e.g. a ConfigMap update);
//   - every replica keeps a key with its hash (expiring, refreshed), so each can tell whether the
//     fleet agrees; /_gateway/health shows it and metrics count it.
// Redis being away costs nothing but this: each replica keeps serving what it has.
import { hostname } from 'node:os';
import { createRequire } from 'node:module';
import type { Redis as RedisClient } from 'ioredis';
import type { Metrics } from '../gateway/metrics.js';
import type { ReloadOutcome } from '../gateway/state.js';
import type { Logger } from '../log.js';
import { shown } from '../setting-values.js';

const require = createRequire(import.meta.url);
const PREFIX = 'catalogue-gateway:fleet';
const CHANNEL = `${PREFIX}:published`;
const HEARTBEAT_MS = 2000;
const TTL_S = 10;
const RETRY_MS = 2000;
const RETRIES = 60;
/** How a reload the fleet asked for names itself (such a reload is not published again). */
export const FLEET_TRIGGER = 'fleet:';

export interface FleetStatus {
  replica: string;
  /** The hash the fleet was last told to serve (by a reload on any replica), if any. */
  target: string | null;
  hash: string;
  /** This replica serves the target (or no target was ever published). */
  converged: boolean;
  /** Every live replica reports the same hash. */
  agree: boolean;
  replicas: { replica: string; hash: string }[];
  /** False while Redis cannot be reached: the figures above are the last ones seen. */
  connected: boolean;
}

export interface Fleet {
  /** A locally asked reload applied: tell the others. */
  publish(hash: string): void;
  status(): FleetStatus;
  close(): Promise<void>;
}

export interface FleetOptions {
  url: string;
  /** This replica's name in the fleet (default host:pid; the server adds its port). */
  replica?: string;
  hash: () => string;
  /** Reload from this replica's own copy; refuse unless it has `expectHash`. */
  reload: (trigger: string, expectHash: string) => Promise<ReloadOutcome>;
  logger: Logger;
  metrics: Metrics;
}

export function joinFleet(o: FleetOptions): Fleet {
  const { Redis } = require('ioredis') as typeof import('ioredis');
  const options = { enableOfflineQueue: false, maxRetriesPerRequest: 0, connectTimeout: 2000, commandTimeout: 1000, retryStrategy: (n: number) => Math.min(100 * n, 2000) };
  const client: RedisClient = new Redis(o.url, options);
  const subscriber: RedisClient = new Redis(o.url, { ...options, enableOfflineQueue: true, commandTimeout: undefined });
  const name = shown(o.url, true);
  const replica = o.replica ?? `${hostname()}:${process.pid}`;
  let target: string | null = null;
  let replicas: FleetStatus['replicas'] = [];
  let connected = false;
  let closed = false;
  let retry: { hash: string; left: number; timer?: NodeJS.Timeout } | undefined;
  let down = false;
  const onError = (e: Error) => {
    connected = false;
    if (down) return;
    down = true;
    o.logger.warn(`fleet store ${name} unreachable (${e.message}); serving catalogue ${o.hash()} meanwhile`);
  };
  client.on('error', onError);
  subscriber.on('error', onError);
  client.on('ready', () => {
    if (down) o.logger.info(`fleet store ${name} reachable again`);
    down = false;
    void beat();
  });

  /** Report this replica's hash; read the target and every replica's hash. */
  async function beat(): Promise<void> {
    if (closed) return;
    try {
      await client.set(`${PREFIX}:replica:${replica}`, o.hash(), 'EX', TTL_S);
      target = JSON.parse((await client.get(`${PREFIX}:target`)) ?? 'null')?.hash ?? null;
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, found] = await client.scan(cursor, 'MATCH', `${PREFIX}:replica:*`, 'COUNT', 100);
        keys.push(...found);
        cursor = next;
      } while (cursor !== '0' && keys.length < 10_000);
      const hashes = keys.length ? await client.mget(...keys) : [];
      replicas = keys.map((k, i) => ({ replica: k.slice(`${PREFIX}:replica:`.length), hash: hashes[i] ?? '' })).filter((r) => r.hash).sort((a, b) => a.replica.localeCompare(b.replica));
      connected = true;
      if (target && target !== o.hash() && !retry) follow(target, 'on start-up or after an outage');
    } catch (e) {
      onError(e as Error);
    }
  }

  /** Reload towards `hash` from this replica's copy; while the copy differs, try again (bounded). */
  function follow(hash: string, why: string): void {
    if (retry) clearTimeout(retry.timer);
    retry = { hash, left: RETRIES };
    const attempt = async () => {
      if (closed || !retry || retry.hash !== hash) return;
      const outcome = await o.reload(`${FLEET_TRIGGER} catalogue ${hash} (${why})`, hash);
      if (outcome.ok || o.hash() === hash || --retry.left <= 0) {
        if (!outcome.ok && o.hash() !== hash) o.logger.warn(`fleet: this replica's catalogue copy still differs from the fleet's (${hash}) after ${RETRIES} tries; serving ${o.hash()}`);
        retry = undefined;
        void beat();
        return;
      }
      retry.timer = setTimeout(() => void attempt(), RETRY_MS);
      retry.timer.unref();
    };
    void attempt();
  }

  void subscriber.subscribe(CHANNEL).catch(onError);
  subscriber.on('message', (_channel: string, text: string) => {
    let msg: { hash?: unknown; replica?: unknown };
    try { msg = JSON.parse(text); } catch { return; }
    if (typeof msg.hash !== 'string' || !/^[0-9a-f]{16}$/.test(msg.hash)) return;
    target = msg.hash;
    if (msg.replica === replica || msg.hash === o.hash()) return void beat();
    follow(msg.hash, `published by ${String(msg.replica).slice(0, 80)}`);
  });
  const timer = setInterval(() => void beat(), HEARTBEAT_MS);
  timer.unref();
  void beat();

  const status = (): FleetStatus => {
    const hash = o.hash();
    const seen = replicas.some((r) => r.replica === replica) ? replicas : [...replicas, { replica, hash }];
    const now = seen.map((r) => (r.replica === replica ? { replica, hash } : r));
    return { replica, target, hash, converged: target === null || target === hash, agree: new Set(now.map((r) => r.hash)).size === 1, replicas: now, connected };
  };
  o.metrics.addGauge('gateway_fleet_agree', 'Every live replica of the fleet serves the same catalogue hash (1) or not (0).', () => (status().agree ? 1 : 0));
  o.metrics.addGauge('gateway_fleet_converged', 'This replica serves the catalogue hash the fleet was last told to serve (1) or not (0).', () => (status().converged ? 1 : 0));
  o.metrics.addGauge('gateway_fleet_replicas', 'Replicas reporting to the fleet store now.', () => status().replicas.length);
  return {
    publish(hash) {
      target = hash;
      const text = JSON.stringify({ hash, replica, at: new Date().toISOString() });
      void client.set(`${PREFIX}:target`, text).then(() => client.publish(CHANNEL, text)).then(() => beat(), onError);
    },
    status,
    async close() {
      closed = true;
      clearInterval(timer);
      if (retry) clearTimeout(retry.timer);
      await client.del(`${PREFIX}:replica:${replica}`).catch(() => {});
      client.disconnect(false);
      subscriber.disconnect(false);
    },
  };
}
