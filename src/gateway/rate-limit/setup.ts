// Wire rate limiting from the configuration: on by default for every service whose catalogue
// declares rateLimits; counters in this process, or in Redis (--rate-limit-store redis://…).
// Counts live across reloads: reconfigure() applies a reload's settings and rateLimits: sections
// to the same counters (by limit), and opens a new store only when the store settings changed.
import type { WsMethod } from '../../catalogue/model.js';
import type { ReleaseView } from '../../catalogue/resolve.js';
import type { GatewayError } from '../errors.js';
import type { Logger } from '../../log.js';
import type { Metrics } from '../observe/metrics.js';
import type { Hook } from '../pipeline.js';
import { rateLimitHook, type Limiter } from './hook.js';
import type { Params } from './weight.js';
import { redisStore } from './redis-store.js';
import { memoryStore, type FailMode } from './store.js';

export interface RateLimitConfig {
  rateLimit: boolean;
  /** 'memory' or a redis:// (rediss://) URL. */
  rateLimitStore: string;
  rateLimitFail: FailMode;
  /** A Redis command unanswered this long (ms) makes Redis count as unresponsive. */
  rateLimitRedisTimeoutMs: number;
  /** Processes serving the port (--workers): with the in-process store each keeps to its share. */
  workers: number;
}

export interface RateLimiting {
  /** The hooks a program compiled now must run: empty when rate limiting is off or no served service declares limits. */
  readonly hooks: Hook[];
  /** Remaining budget per limit (and refusals, ban seconds, the store's state), as gauges named gateway_<key>. */
  limiterGauges(): Record<string, number>;
  /**
   * Apply a reload's settings and catalogue, before compiling the programs that read `hooks`.
   * Counts are kept by limit (service, kind, interval, countedBy, pathPrefix): one that stays keeps
   * its count, also when its `limit` changed; a new one starts at zero; a removed one is forgotten.
   * A changed store, fail mode or Redis timeout opens a new store (counts start over there; the old
   * one closes once the requests still using it are done). Never throws.
   */
  reconfigure(config: RateLimitConfig, views: ReleaseView[]): void;
  /** Charge a websocket-API request frame to the REST counters (see Limiter.chargeFrame): the refusal, or undefined to forward. */
  chargeFrame(service: string, method: WsMethod, params: Params, authorization?: string): GatewayError | undefined;
  /** Export the gauges and counters of limiterGauges() (the names known now) through `metrics`. */
  observe(metrics: Metrics): void;
  close(): Promise<void>;
}

const HELP: [RegExp, string][] = [
  [/_refused_total$/, 'Requests the rate limiter refused locally (429), never forwarded.'],
  [/_ban_seconds$/, 'Seconds left of an upstream ban (418/429 Retry-After) during which requests are refused locally.'],
  [/^rate_limit_store_up$/, 'Whether the rate-limit store counts (1), or is unreachable or silent past --rate-limit-redis-timeout and --rate-limit-fail applies (0).'],
  [/./, 'Weight or orders left in the current window of this limit.'],
];

/** Requests still running on a replaced store get this long before it closes under them. */
const RETIRE_MS = 30_000;

export function rateLimiting(config: RateLimitConfig, views: ReleaseView[], logger: Logger): RateLimiting {
  let current: { limiter: Limiter; key: string } | undefined;
  const retiring = new Set<Limiter>();
  const storeKey = (c: RateLimitConfig) => `${c.rateLimitStore} ${c.rateLimitFail} ${c.rateLimitRedisTimeoutMs}`;

  function retire(l: Limiter): void {
    retiring.add(l);
    setTimeout(() => { retiring.delete(l); void l.close(); }, RETIRE_MS).unref();
  }

  function configure(c: RateLimitConfig, vs: ReleaseView[], first: boolean): void {
    const limited = c.rateLimit ? vs.filter((v) => v.service.kind === 'proxy' && v.service.rateLimits?.length) : [];
    if (!limited.length) {
      // Off, or nothing declares limits: no hook, and no store connection kept open for nothing.
      if (current) retire(current.limiter);
      current = undefined;
      return;
    }
    const key = storeKey(c);
    if (current && current.key === key) {
      current.limiter.apply(vs);
    } else {
      if (current) retire(current.limiter);
      const store = c.rateLimitStore === 'memory' ? memoryStore() : redisStore(c.rateLimitStore, c.rateLimitFail, logger, c.rateLimitRedisTimeoutMs);
      // Workers counting apart would each allow the whole limit: each keeps to its share instead.
      const share = store.name === 'memory' ? c.workers : 1;
      current = { limiter: rateLimitHook(vs, store, c.rateLimitFail, logger, share), key };
      const where = store.name === 'memory' ? `in each process${share > 1 ? ` (1/${share} of every limit per worker; --rate-limit-store redis://… for one count)` : ''}` : `in ${store.name} (if unreachable or silent past ${c.rateLimitRedisTimeoutMs} ms: fail ${c.rateLimitFail})`;
      if (first) logger.info(`rate limits of ${[...new Set(limited.map((v) => v.service.id))].join(', ')} enforced, counted ${where}`);
      else logger.info(`rate limits now counted ${where}`);
    }
  }

  configure(config, views, true);
  return {
    get hooks() { return current?.limiter.active() ? [current.limiter.hook] : []; },
    limiterGauges: () => current?.limiter.gauges() ?? {},
    reconfigure: (c, vs) => configure(c, vs, false),
    chargeFrame: (service, method, params, authorization) => current?.limiter.chargeFrame(service, method, params, authorization),
    observe(metrics) {
      for (const [name, value] of Object.entries(this.limiterGauges())) {
        const read = () => this.limiterGauges()[name] ?? value;
        const help = HELP.find(([re]) => re.test(name))![1];
        if (name.endsWith('_total')) metrics.addCounter(`gateway_${name}`, help, read);
        else metrics.addGauge(`gateway_${name}`, help, read);
      }
    },
    close: async () => {
      const all = [...retiring, ...(current ? [current.limiter] : [])];
      retiring.clear();
      current = undefined;
      await Promise.all(all.map((l) => l.close()));
    },
  };
}
