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
  return new FleetMember(o);
}

class FleetMember implements Fleet {
  private readonly client: RedisClient;
  private readonly subscriber: RedisClient;
  private readonly name: string;
  private readonly replica: string;
  private readonly timer: NodeJS.Timeout;
  private target: string | null = null;
  private replicas: FleetStatus['replicas'] = [];
  private connected = false;
  private closed = false;
  private down = false;
  private retry: { hash: string; left: number; timer?: NodeJS.Timeout } | undefined;

  constructor(private readonly o: FleetOptions) {
    const { Redis } = require('ioredis') as typeof import('ioredis');
    const options = { enableOfflineQueue: false, maxRetriesPerRequest: 0, connectTimeout: 2000, commandTimeout: 1000, retryStrategy: (n: number) => Math.min(100 * n, 2000) };
    this.client = new Redis(o.url, options);
    this.subscriber = new Redis(o.url, { ...options, enableOfflineQueue: true, commandTimeout: undefined });
    this.name = shown(o.url, true);
    this.replica = o.replica ?? `${hostname()}:${process.pid}`;
    const onError = (e: Error) => this.unreachable(e);
    this.client.on('error', onError);
    this.subscriber.on('error', onError);
    this.client.on('ready', () => {
      if (this.down) o.logger.info(`fleet store ${this.name} reachable again`);
      this.down = false;
      void this.beat();
    });
    void this.subscriber.subscribe(CHANNEL).catch(onError);
    this.subscriber.on('message', (_channel: string, text: string) => this.published(text));
    this.timer = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.timer.unref();
    void this.beat();
    o.metrics.addGauge('gateway_fleet_agree', 'Every live replica of the fleet serves the same catalogue hash (1) or not (0).', () => (this.status().agree ? 1 : 0));
    o.metrics.addGauge('gateway_fleet_converged', 'This replica serves the catalogue hash the fleet was last told to serve (1) or not (0).', () => (this.status().converged ? 1 : 0));
    o.metrics.addGauge('gateway_fleet_replicas', 'Replicas reporting to the fleet store now.', () => this.status().replicas.length);
  }

  private unreachable(e: Error): void {
    this.connected = false;
    if (this.down) return;
    this.down = true;
    this.o.logger.warn(`fleet store ${this.name} unreachable (${e.message}); serving catalogue ${this.o.hash()} meanwhile`);
  }

  /** Report this replica's hash; read the target and every replica's hash. */
  private async beat(): Promise<void> {
    if (this.closed) return;
    const { client } = this;
    try {
      await client.set(`${PREFIX}:replica:${this.replica}`, this.o.hash(), 'EX', TTL_S);
      this.target = JSON.parse((await client.get(`${PREFIX}:target`)) ?? 'null')?.hash ?? null;
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, found] = await client.scan(cursor, 'MATCH', `${PREFIX}:replica:*`, 'COUNT', 100);
        keys.push(...found);
        cursor = next;
      } while (cursor !== '0' && keys.length < 10_000);
      const hashes = keys.length ? await client.mget(...keys) : [];
      this.replicas = keys.map((k, i) => ({ replica: k.slice(`${PREFIX}:replica:`.length), hash: hashes[i] ?? '' })).filter((r) => r.hash).sort((a, b) => a.replica.localeCompare(b.replica));
      this.connected = true;
      if (this.target && this.target !== this.o.hash() && !this.retry) this.follow(this.target, 'on start-up or after an outage');
    } catch (e) {
      this.unreachable(e as Error);
    }
  }

  /** A notice on the channel: another replica applied a reload. */
  private published(text: string): void {
    let msg: { hash?: unknown; replica?: unknown };
    try { msg = JSON.parse(text); } catch { return; }
    if (typeof msg.hash !== 'string' || !/^[0-9a-f]{16}$/.test(msg.hash)) return;
    this.target = msg.hash;
    if (msg.replica === this.replica || msg.hash === this.o.hash()) return void this.beat();
    this.follow(msg.hash, `published by ${String(msg.replica).slice(0, 80)}`);
  }

  /** Reload towards `hash` from this replica's copy; while the copy differs, try again (bounded). */
  private follow(hash: string, why: string): void {
    if (this.retry) clearTimeout(this.retry.timer);
    const retry: { hash: string; left: number; timer?: NodeJS.Timeout } = { hash, left: RETRIES };
    this.retry = retry;
    const attempt = async () => {
      if (this.closed || this.retry !== retry) return;
      const outcome = await this.o.reload(`${FLEET_TRIGGER} catalogue ${hash} (${why})`, hash);
      if (outcome.ok || this.o.hash() === hash || --retry.left <= 0) {
        if (!outcome.ok && this.o.hash() !== hash) this.o.logger.warn(`fleet: this replica's catalogue copy still differs from the fleet's (${hash}) after ${RETRIES} tries; serving ${this.o.hash()}`);
        if (this.retry === retry) this.retry = undefined;
        void this.beat();
        return;
      }
      retry.timer = setTimeout(() => void attempt(), RETRY_MS);
      retry.timer.unref();
    };
    void attempt();
  }

  status(): FleetStatus {
    const hash = this.o.hash();
    const { replica, replicas } = this;
    const seen = replicas.some((r) => r.replica === replica) ? replicas : [...replicas, { replica, hash }];
    const now = seen.map((r) => (r.replica === replica ? { replica, hash } : r));
    return { replica, target: this.target, hash, converged: this.target === null || this.target === hash, agree: new Set(now.map((r) => r.hash)).size === 1, replicas: now, connected: this.connected };
  }

  publish(hash: string): void {
    this.target = hash;
    const text = JSON.stringify({ hash, replica: this.replica, at: new Date().toISOString() });
    void this.client.set(`${PREFIX}:target`, text).then(() => this.client.publish(CHANNEL, text)).then(() => this.beat(), (e: Error) => this.unreachable(e));
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    if (this.retry) clearTimeout(this.retry.timer);
    await this.client.del(`${PREFIX}:replica:${this.replica}`).catch(() => {});
    this.client.disconnect(false);
    this.subscriber.disconnect(false);
  }
}
