// A fleet of replicas agreeing on one catalogue (--fleet redis://…). The gateway never ships a
// catalogue over Redis: each replica reads its own copy (a shared volume, a ConfigMap, a checkout).
// What goes through Redis is the catalogue's identity, its content hash:
//   - a reload a replica was asked for (SIGHUP, POST, --watch) that applied publishes its hash as the
//     fleet's target, and every other replica reloads from its own copy, swapping only if that copy
//     has the target's hash (otherwise it keeps its last good program, says so, and tries again as
//     its copy may still be on its way, e.g. a ConfigMap update);
//   - every replica keeps a record with its hash (expiring, refreshed, its name in a registry scored
//     by heartbeat), so each can tell whether the fleet agrees; /_gateway/health shows it and metrics
//     count it.
// Redis being away costs nothing but this: each replica keeps serving what it has.
//
// Nothing read from Redis is trusted beyond its form (anyone who can write these keys can write
// anything): replica records are read through one bounded script (at most MAX_REPLICAS, names of at
// most MAX_NAME characters in a fixed alphabet, values read as at most 64 bytes and kept only if they
// are a hash, heartbeats no older than the TTL and not from the future), so health and metrics stay
// small whatever the store holds and those left out are counted as `ignored`. A target or a notice is
// followed only if a live replica's record reports its hash (a publisher writes its own record
// first): one that names nothing real is dropped after that one look, without a reload. Tries
// towards a target last at most retryForMs (2 minutes), once per hash: a hash given up on or
// superseded is not tried again, and the fleet asks for at most one reload per retryMs (2 s).
// The trust model, for operators: whoever can write these keys can make the fleet look divided or
// spend reloads, never make a replica serve anything but its own copy (documented under Operating a fleet).
import { redisOptions } from '../redis-options.js';
import { hostname } from 'node:os';
import { createRequire } from 'node:module';
import type { Redis as RedisClient } from 'ioredis';
import type { Metrics } from '../gateway/observe/metrics.js';
import type { ReloadOutcome } from '../gateway/program/state.js';
import type { Logger } from '../log.js';
import { shown } from '../setting-values.js';
import { CHANNEL, MAX_REPLICAS, RECORD, REGISTRY, TARGET, notice, readStore, replicaName, withRecordReader, type FleetClient } from './fleet-store.js';

const require = createRequire(import.meta.url);
/** Hashes given up on, remembered (the oldest forgotten first). */
const GIVEN_UP = 16;

/** Timings (tests shorten them). */
export interface FleetTimings {
  heartbeatMs: number;
  /** A record not refreshed for this long is gone. */
  ttlMs: number;
  /** Between tries towards a target this replica's copy does not have yet. */
  retryMs: number;
  /** Tries towards one target stop after this long (the README's 2 minutes). */
  retryForMs: number;
}
export const FLEET_TIMINGS: FleetTimings = { heartbeatMs: 2000, ttlMs: 10_000, retryMs: 2000, retryForMs: 120_000 };

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
  /** Live records left out of `replicas`: malformed (name, value) or past MAX_REPLICAS. */
  ignored: number;
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
  timings?: Partial<FleetTimings>;
}

export function joinFleet(o: FleetOptions): Fleet {
  return new FleetMember(o);
}

class FleetMember implements Fleet {
  private readonly client: FleetClient;
  private readonly subscriber: RedisClient;
  private readonly name: string;
  private readonly replica: string;
  private readonly timer: NodeJS.Timeout;
  private readonly t: FleetTimings;
  private target: string | null = null;
  private replicas: FleetStatus['replicas'] = [];
  private ignored = 0;
  private connected = false;
  private closed = false;
  private down = false;
  private retry: { hash: string; until: number; timer?: NodeJS.Timeout } | undefined;
  /** Hashes whose tries ran out, or that named nothing real: not followed again. */
  private readonly givenUp: string[] = [];
  /** A notice arrived while a beat ran: look again once it ends. */
  private beating: Promise<void> | undefined;
  private again = false;
  /** The hash of the last notice heard, until the next look decides on it. */
  private noticed: string | undefined;
  /** When the fleet last asked this replica to reload (performance.now()). */
  private lastTry = -Infinity;

  constructor(private readonly o: FleetOptions) {
    const { Redis } = require('ioredis') as typeof import('ioredis');
    const options = redisOptions(1000);
    this.t = { ...FLEET_TIMINGS, ...o.timings };
    this.client = withRecordReader(new Redis(o.url, options));
    this.subscriber = new Redis(o.url, { ...options, enableOfflineQueue: true, commandTimeout: undefined });
    this.name = shown(o.url, true);
    this.replica = replicaName(o.replica ?? `${hostname()}:${process.pid}`);
    const onError = (e: Error) => this.unreachable(e);
    this.client.on('error', onError);
    this.subscriber.on('error', onError);
    this.client.on('ready', () => {
      if (this.down) o.logger.info(`fleet store ${this.name} reachable again`);
      this.down = false;
      void this.look();
    });
    void this.subscriber.subscribe(CHANNEL).catch(onError);
    this.subscriber.on('message', (_channel: string, text: string) => this.published(text));
    this.timer = setInterval(() => void this.look(), this.t.heartbeatMs);
    this.timer.unref();
    void this.look();
    o.metrics.addGauge('gateway_fleet_agree', 'Every live replica of the fleet serves the same catalogue hash (1) or not (0).', () => (this.status().agree ? 1 : 0));
    o.metrics.addGauge('gateway_fleet_converged', 'This replica serves the catalogue hash the fleet was last told to serve (1) or not (0).', () => (this.status().converged ? 1 : 0));
    o.metrics.addGauge('gateway_fleet_replicas', 'Replicas reporting to the fleet store now (well-formed live records, at most 256).', () => this.status().replicas.length);
    o.metrics.addGauge('gateway_fleet_records_ignored', 'Live records in the fleet store left out: malformed, or past the 256 listed.', () => this.ignored);
  }

  private unreachable(e: Error): void {
    this.connected = false;
    if (this.down) return;
    this.down = true;
    this.o.logger.warn(`fleet store ${this.name} unreachable (${e.message}); serving catalogue ${this.o.hash()} meanwhile`);
  }

  /** One beat at a time; asked while one runs, one more runs after it (notices coalesce). */
  private look(): Promise<void> {
    if (this.beating) {
      this.again = true;
      return this.beating;
    }
    this.beating = this.beat().finally(() => {
      this.beating = undefined;
      if (this.again) {
        this.again = false;
        void this.look();
      }
    });
    return this.beating;
  }

  /** Report this replica's hash; read the target and the live replicas' records (bounded); follow a real target. */
  private async beat(): Promise<void> {
    if (this.closed) return;
    const { client } = this;
    try {
      const now = Date.now();
      await client.multi()
        .set(`${RECORD}${this.replica}`, this.o.hash(), 'PX', this.t.ttlMs)
        .zadd(REGISTRY, now, this.replica)
        .zremrangebyscore(REGISTRY, '-inf', now - 6 * this.t.ttlMs) // replicas gone for good
        .exec();
      const { replicas, ignored, target } = await readStore(client, now, this.t.ttlMs);
      this.replicas = replicas;
      if (ignored && !this.ignored) this.o.logger.warn(`fleet store ${this.name}: ${ignored} live replica record(s) ignored (malformed, or past the ${MAX_REPLICAS} listed); who else writes to it?`);
      this.ignored = ignored;
      this.connected = true;
      // The notice heard since the last look (if any), then the target record: each followed only if real.
      const noticed = this.noticed;
      this.noticed = undefined;
      if (noticed) this.decide(noticed, 'notice');
      this.decide(target, 'target');
    } catch (e) {
      this.unreachable(e as Error);
    }
  }

  /**
   * A hash the fleet names (a notice, or the target record): followed only if a live replica's record
   * reports it (real), at most once per hash. A target record naming nothing real is no target; a
   * notice naming nothing real is dropped, both with one warning and without a reload.
   */
  private decide(hash: string | null, from: 'notice' | 'target'): void {
    const own = this.o.hash();
    if (hash === null || hash === own) {
      if (from === 'target') this.target = hash;
      return;
    }
    if (this.retry?.hash === hash) return;
    if (!this.replicas.some((r) => r.hash === hash && r.replica !== this.replica)) {
      if (from === 'target') this.target = null;
      if (this.givenUp.includes(hash)) return;
      this.o.logger.warn(`fleet: catalogue ${hash} named by the ${from === 'target' ? 'fleet store\'s target' : 'notice channel'} is served by no live replica: ignored; serving ${own}`);
      return this.giveUp(hash);
    }
    this.target = hash;
    if (!this.givenUp.includes(hash)) this.follow(hash, from === 'notice' ? 'published by another replica' : 'the fleet\'s target, on start-up or after an outage');
  }

  private giveUp(hash: string): void {
    this.givenUp.push(hash);
    if (this.givenUp.length > GIVEN_UP) this.givenUp.shift();
  }

  /** A notice on the channel (another replica applied a reload): a look at the records decides. */
  private published(text: string): void {
    const msg = notice(text);
    if (!msg || msg.hash === this.o.hash() || this.givenUp.includes(msg.hash) || this.retry?.hash === msg.hash) return;
    this.noticed = msg.hash;
    void this.look();
  }

  /** Reload towards `hash` from this replica's copy; while the copy differs, try again for at most retryForMs. */
  private follow(hash: string, why: string): void {
    if (this.retry) {
      clearTimeout(this.retry.timer);
      this.giveUp(this.retry.hash); // superseded: never tried again
    }
    const retry: { hash: string; until: number; timer?: NodeJS.Timeout } = { hash, until: performance.now() + this.t.retryForMs };
    this.retry = retry;
    const attempt = async () => {
      if (this.closed || this.retry !== retry) return;
      // Reloads the fleet asks for: one per retryMs at most, whichever hashes it names.
      const wait = this.lastTry + this.t.retryMs - performance.now();
      if (wait > 0) {
        retry.timer = setTimeout(() => void attempt(), wait);
        return void retry.timer.unref();
      }
      this.lastTry = performance.now();
      const outcome = await this.o.reload(`${FLEET_TRIGGER} catalogue ${hash} (${why})`, hash);
      const over = performance.now() + this.t.retryMs > retry.until;
      if (outcome.ok || this.o.hash() === hash || over || this.closed || this.retry !== retry) {
        if (!outcome.ok && this.o.hash() !== hash && this.retry === retry) {
          this.o.logger.warn(`fleet: this replica's catalogue copy still differs from the fleet's (${hash}) after ${Math.round(this.t.retryForMs / 1000)} s of tries; serving ${this.o.hash()} (a reload asked of this replica takes what its copy holds)`);
          this.giveUp(hash);
        }
        if (this.retry === retry) this.retry = undefined;
        void this.look();
        return;
      }
      retry.timer = setTimeout(() => void attempt(), this.t.retryMs);
      retry.timer.unref();
    };
    void attempt();
  }

  status(): FleetStatus {
    const hash = this.o.hash();
    const { replica, replicas } = this;
    const seen = replicas.some((r) => r.replica === replica) ? replicas : [...replicas, { replica, hash }];
    const now = seen.map((r) => (r.replica === replica ? { replica, hash } : r));
    return { replica, target: this.target, hash, converged: this.target === null || this.target === hash, agree: new Set(now.map((r) => r.hash)).size === 1, replicas: now, ignored: this.ignored, connected: this.connected };
  }

  publish(hash: string): void {
    this.target = hash;
    const at = Date.now();
    const text = JSON.stringify({ hash, replica: this.replica, at: new Date(at).toISOString() });
    const givenUp = this.givenUp.indexOf(hash);
    if (givenUp >= 0) this.givenUp.splice(givenUp, 1); // served here now
    // Our own record before the notice: the others follow a hash only once a live record reports it.
    void this.client.multi()
      .set(`${RECORD}${this.replica}`, hash, 'PX', this.t.ttlMs)
      .zadd(REGISTRY, at, this.replica)
      .set(TARGET, text)
      .publish(CHANNEL, text)
      .exec()
      .then(() => this.look(), (e: Error) => this.unreachable(e));
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    if (this.retry) clearTimeout(this.retry.timer);
    await Promise.all([this.client.del(`${RECORD}${this.replica}`), this.client.zrem(REGISTRY, this.replica)]).catch(() => {});
    this.client.disconnect(false);
    this.subscriber.disconnect(false);
  }
}
