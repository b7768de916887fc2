// The counters of the limits a catalogue declares: one per limit (service, kind, interval,
// countedBy, pathPrefix), shared by every release view of a service and kept across reloads (a
// changed limit resizes it), with what this process last saw of each key.
import { aliveAt } from '../../catalogue/lifecycle.js';
import type { RateLimit } from '../../catalogue/model.js';
import type { ReleaseView } from '../../catalogue/resolve.js';
import type { Counter as StoreCounter, CounterStore } from './store.js';

/** One limit of one service: its counter family in the store and what this process last saw of it. */
export interface Counter {
  limit: RateLimit;
  /** What this process may use of the limit: all of it, or its share when several processes count apart. */
  budget: number;
  /** The store's counter, made on first use (the store's code loads then). */
  counter(): StoreCounter;
  /** The budget changed (a reload changed the limit): the store's counter refuses at the new one. */
  resized(budget: number): void;
  /** Lower-cased answer header carrying the upstream's count of this limit. */
  header?: string;
  /** "REQUEST_WEIGHT limit of 6000 per 1m (counted per gateway egress IP)", for refusals. */
  what: string;
  /** Gauge name without the gateway_ prefix. */
  gauge: string;
  /** Last count seen per key, and when its window ends (ms): for learning and gauges without a store round trip. */
  seen: Map<string, { used: number; resetAt: number }>;
}

export interface ServiceLimits {
  id: string;
  counters: Counter[];
  /** The upstream refused the egress IP (429/418 with Retry-After) until then (ms since the epoch). */
  bannedUntil: number;
  refused: number;
  apiKeyHeader?: string;
}

/** What a limiter counts: the services with limits, and their counters by limit. */
export interface Limits {
  services: Map<string, ServiceLimits>;
  counters: Map<string, Counter>;
}

/** Charges made for one request so far: taken back if a later limit refuses it. */
export type Taken = [Counter, string, number][];

const COUNTED_BY = { ip: 'gateway egress IP', apiKey: 'account (API key)', token: 'client token' } as const;

/**
 * The limits of `views`. One that `was` counted too keeps its counter (resized to a changed
 * `limit`), a new one starts at zero, a removed one is forgotten; a service keeps its ban and refusals.
 * `share`: how many processes count apart (each keeps to 1/share of every limit).
 */
export function limitsOf(views: ReleaseView[], was: Limits, store: CounterStore, share: number): Limits {
  const services = new Map<string, ServiceLimits>();
  const counters = new Map<string, Counter>();
  for (const v of views) {
    if (v.service.kind !== 'proxy') continue;
    // The upstream's limits as they are today (its newest release), whatever release a client pins:
    // version changes carry every request up to the upstream, which meters them all alike.
    const limits = aliveAt(v.service.rateLimits ?? [], Math.max(v.service.releases.length - 1, 0));
    if (!limits.length) continue;
    let svc = services.get(v.service.id);
    if (!svc) {
      const prior = was.services.get(v.service.id);
      services.set(v.service.id, (svc = { id: v.service.id, counters: [], bannedUntil: prior?.bannedUntil ?? 0, refused: prior?.refused ?? 0, apiKeyHeader: v.service.apiKeyHeader?.toLowerCase() }));
    }
    for (const l of limits) {
      const name = `${v.service.id}:${l.kind}:${l.interval}:${l.countedBy}:${l.pathPrefix ?? ''}`;
      let c = counters.get(name);
      if (!c) {
        c = was.counters.get(name);
        if (c) resize(c, l, share);
        else c = makeCounter(v.service.id, l, name, store, share);
        counters.set(name, c);
      }
      if (!svc.counters.includes(c)) svc.counters.push(c);
    }
  }
  return { services, counters };
}

function makeCounter(service: string, l: RateLimit, name: string, store: CounterStore, share: number): Counter {
  let made: StoreCounter | undefined;
  const slug = `${service}_${l.kind}_${l.interval}_${l.countedBy}${l.pathPrefix ? `_${l.pathPrefix}` : ''}`.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/_$/, '');
  const c: Counter = {
    limit: l,
    budget: 0,
    counter: () => (made ??= store.counter(`gw:rl:${name}`, c.budget, l.seconds)),
    resized: (budget) => made?.resize(budget),
    what: '',
    gauge: `rate_limit_${slug}_remaining`,
    seen: new Map(),
  };
  resize(c, l, share);
  return c;
}

/** (Re)read what a limit's declaration says: its budget, counter header and description; the count stays. */
function resize(c: Counter, l: RateLimit, share: number): void {
  const budget = Math.max(1, Math.floor(l.limit / share));
  c.limit = l;
  c.header = l.header?.toLowerCase();
  c.what = `${l.kind} limit of ${l.limit} per ${l.interval}${l.pathPrefix ? ` on ${l.pathPrefix}*` : ''} (counted per ${COUNTED_BY[l.countedBy]}${budget < l.limit ? `; this process's share: ${budget}` : ''})`;
  if (budget !== c.budget) {
    c.budget = budget;
    c.resized(budget);
  }
}

/** Remember a key's count and window end as last seen. */
export function note(c: Counter, key: string, used: number, resetAt: number): void {
  const s = c.seen.get(key);
  if (s) { s.used = used; s.resetAt = resetAt; } else c.seen.set(key, { used, resetAt });
}

export function refund(taken: Taken): void {
  for (const [c, key, points] of taken) c.counter().reward(key, points);
}

/**
 * The upstream counted more than we did (other users of the IP, another window start): charge the
 * difference. With a share of the limit, what the upstream has left bounds what this process has left.
 */
export function learn(c: Counter, key: string, count: number): void {
  if (!(count >= 0)) return;
  const upstream = count - (c.limit.limit - c.budget);
  if (upstream <= 0) return;
  const s = c.seen.get(key);
  const now = Date.now();
  const local = s && s.resetAt > now ? s.used : 0;
  if (upstream <= local) return; // the common case: we counted at least as much
  note(c, key, upstream, s && s.resetAt > now ? s.resetAt : now + c.limit.seconds * 1000);
  c.counter().penalty(key, upstream - local);
}
