// The rate limiter as a pipeline hook. Behind a gateway every client shares its egress IP, so one
// greedy client could get the whole deployment banned (the exchange answers 418 to an IP that keeps
// exceeding its limits, for minutes to days). The catalogue knows each limit (service.yaml
// rateLimits) and each endpoint's weight, so the gateway counts before forwarding:
//
//   prepare   after validation: charge every limit the request counts against; one that would go
//             over refuses the request 429 (-1003, Retry-After) and it never reaches the upstream
//   answered  learn the upstream's own counts (X-MBX-USED-WEIGHT-1M…: raise ours when it saw more,
//             e.g. other users of the same IP) and its 429/418 + Retry-After (refuse locally until then)
//
// Windows are fixed, starting at a key's first request (the exchange's are calendar-aligned); the
// learned counts correct the difference in the direction that matters.
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { aliveAt } from '../../catalogue/lifecycle.js';
import type { RateLimit, Weight, WsMethod } from '../../catalogue/model.js';
import type { ReleaseView } from '../../catalogue/resolve.js';
import type { Logger } from '../../log.js';
import { GatewayError } from '../errors.js';
import type { Hook, RequestState } from '../pipeline.js';
import type { Route } from '../route-table.js';
import type { Count, Counter as StoreCounter, CounterStore, FailMode } from './store.js';
import { requestWeight, type Params } from './weight.js';

/** One limit of one service: its counter family in the store and what this process last saw of it. */
interface Counter {
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

interface ServiceLimits {
  id: string;
  counters: Counter[];
  /** The upstream refused the egress IP (429/418 with Retry-After) until then (ms since the epoch). */
  bannedUntil: number;
  refused: number;
  apiKeyHeader?: string;
}

/** What one route's requests count against, worked out on its first request. */
interface Plan {
  svc: ServiceLimits;
  /** cost null: the endpoint's conditional weight, computed per request. */
  charges: { c: Counter; cost: number | null }[];
  weight?: Weight;
  /** Counters whose upstream header this route's answers carry. */
  learn: Counter[];
}

/** The rate limiter of one counter store: its hook, and the limits it counts (replaced by apply()). */
export interface Limiter {
  hook: Hook;
  /** Whether any served service declares limits (else the hook need not run). */
  active(): boolean;
  /**
   * Count the limits of these views from now on. A limit is known by its service, kind, interval,
   * countedBy and pathPrefix: one that stays keeps its count (a changed `limit` applies to it), a
   * new one starts at zero, a removed one is forgotten. Routes are planned anew.
   */
  apply(views: ReleaseView[]): void;
  /** Remaining budget per limit (and refusals, ban seconds, the store's state), as gauges named gateway_<key>. */
  gauges(): Record<string, number>;
  /**
   * Charge one websocket-API request frame against the same counters as REST: its method's weight
   * (REQUEST_WEIGHT) and, for a method ORDERS counts ("ws-api <method>"), one order. Synchronous,
   * since frames are relayed in order: with a store that answers later (Redis) the frame is judged
   * by the count last seen and counted there meanwhile. Returns the refusal, or undefined to forward.
   */
  chargeFrame(service: string, method: WsMethod, params: Params, authorization?: string): GatewayError | undefined;
  close(): Promise<void>;
}

const COUNTED_BY = { ip: 'gateway egress IP', apiKey: 'account (API key)', token: 'client token' } as const;
/** Which weights a REQUEST_WEIGHT limit sums: the exchange's IP weights per IP, UID weights per account. */
const WEIGHT_PER = { ip: 'IP', apiKey: 'UID' } as const;

/**
 * `share`: how many processes count apart (--workers with the in-process store): each then keeps
 * to 1/share of every limit, so together they never exceed it. 1 when the store is shared.
 */
export function rateLimitHook(views: ReleaseView[], store: CounterStore, fail: FailMode, logger: Logger, share = 1): Limiter {
  let services = new Map<string, ServiceLimits>();
  let counters = new Map<string, Counter>(); // one per limit, shared by every release view of a service
  // Keyed weakly: a Route belongs to one compiled program, and a reload must be able to drop the
  // program (and the catalogue it references) once its last request is done.
  let plans = new WeakMap<Route, Plan | null>();
  let framePlans = new WeakMap<WsMethod, Plan | null>();
  function apply(next: ReleaseView[]): void {
    const svcs = new Map<string, ServiceLimits>();
    const kept = new Map<string, Counter>();
    for (const v of next) {
      if (v.service.kind !== 'proxy') continue;
      const limits = aliveAt(v.service.rateLimits ?? [], v.at);
      if (!limits.length) continue;
      let svc = svcs.get(v.service.id);
      if (!svc) {
        const was = services.get(v.service.id);
        svcs.set(v.service.id, (svc = { id: v.service.id, counters: [], bannedUntil: was?.bannedUntil ?? 0, refused: was?.refused ?? 0, apiKeyHeader: v.service.apiKeyHeader?.toLowerCase() }));
      }
      for (const l of limits) {
        const name = `${v.service.id}:${l.kind}:${l.interval}:${l.countedBy}:${l.pathPrefix ?? ''}`;
        let c = kept.get(name);
        if (!c) {
          c = counters.get(name);
          if (c) resize(c, l, share);
          else c = makeCounter(v.service.id, l, name, store, share);
          kept.set(name, c);
        }
        if (!svc.counters.includes(c)) svc.counters.push(c);
      }
    }
    services = svcs;
    counters = kept;
    plans = new WeakMap();
    framePlans = new WeakMap();
  }
  apply(views);
  const planOf = (route: Route): Plan | null => {
    let p = plans.get(route);
    if (p === undefined) plans.set(route, (p = plan(route, services.get(route.view.service.id))));
    return p;
  };
  const framePlanOf = (service: string, m: WsMethod): Plan | null => {
    let p = framePlans.get(m);
    if (p === undefined) framePlans.set(m, (p = framePlan(m, services.get(service))));
    return p;
  };

  function chargeFrame(service: string, m: WsMethod, params: Params, authorization?: string): GatewayError | undefined {
    const p = framePlanOf(service, m);
    if (!p) return undefined;
    const now = Date.now();
    if (p.svc.bannedUntil > now) return banned(p.svc, now);
    if (fail === 'closed' && !store.up()) {
      const e = new GatewayError('overloaded', `Rate limits cannot be checked: the rate-limit store ${store.name} is unreachable; the gateway refuses rather than risk the exchange banning its IP (--rate-limit-fail closed).`);
      e.quiet = true;
      return e;
    }
    const apiKey = typeof params.apiKey === 'string' && params.apiKey ? params.apiKey : undefined;
    const taken: [Counter, string, number][] = [];
    for (const { c, cost } of p.charges) {
      const points = cost ?? requestWeight(p.weight!, params);
      if (points <= 0) continue;
      const key = keyFor(c.limit.countedBy, apiKey, authorization);
      const r = c.counter().consume(key, points);
      let res: Count;
      if (r instanceof Promise) {
        const s = c.seen.get(key);
        const live = s !== undefined && s.resetAt > now;
        res = { refused: false, used: (live ? s.used : 0) + points, msBeforeNext: live ? s.resetAt - now : c.limit.seconds * 1000 };
        if (res.used > c.budget) res = { ...res, refused: true, used: res.used - points };
        const refused = res.refused;
        r.then((counted) => {
          if (refused && !counted.refused) c.counter().reward(key, points); // not forwarded: take it back
          else if (!refused) note(c, key, counted.used, Date.now() + counted.msBeforeNext);
        }, () => { /* the store logged its outage; the frame was judged by the last count seen */ });
      } else res = r;
      note(c, key, res.used, now + res.msBeforeNext);
      if (res.refused) {
        refund(taken);
        p.svc.refused++;
        return tooMany(c, points, res.used, res.msBeforeNext);
      }
      taken.push([c, key, points]);
    }
    return undefined;
  }

  const hook: Hook = {
    prepare(state) {
      const p = planOf(state.route);
      if (!p) return;
      const now = Date.now();
      if (p.svc.bannedUntil > now) throw banned(p.svc, now);
      if (p.charges.length) return charge(p, state, now);
    },
    answered(state, status, headers) {
      const p = planOf(state.route);
      if (!p) return;
      if ((status === 429 || status === 418) && headers['retry-after'] !== undefined) ban(p.svc, status, String(headers['retry-after']));
      for (const c of p.learn) {
        const v = headers[c.header!];
        if (v !== undefined) learn(c, keyOf(c, p.svc, state.headers), Number(v));
      }
    },
  };

  type Taken = [Counter, string, number][] | undefined;

  /** Charge every limit in turn; synchronous with the in-process store, a promise with Redis. */
  function charge(p: Plan, state: RequestState, now: number): void | Promise<void> {
    const starting = store.starting();
    if (starting) return starting.then(() => chargeFrom(p, state, 0, undefined));
    return chargeFrom(p, state, 0, undefined, now);
  }

  function chargeFrom(p: Plan, state: RequestState, from: number, taken: Taken, now?: number): void | Promise<void> {
    for (let i = from; i < p.charges.length; i++) {
      const { c, cost } = p.charges[i];
      const points = cost ?? requestWeight(p.weight!, state.params);
      if (points <= 0) continue;
      const key = keyOf(c, p.svc, state.headers);
      const r = c.counter().consume(key, points);
      if (r instanceof Promise) {
        return r.then(
          (res) => chargeFrom(p, state, i + 1, settle(p, c, key, points, res, Date.now(), taken)),
          (e: Error) => {
            // Only reachable with --rate-limit-fail closed (open falls back to memory inside the store).
            if (taken) refund(taken);
            const refusal = new GatewayError('overloaded', `Rate limits cannot be checked: the rate-limit store ${store.name} is unreachable (${e.message === 'Command timed out' ? 'no answer in time' : e.message}); the gateway refuses rather than risk the exchange banning its IP (--rate-limit-fail ${fail}).`, { 'retry-after': '1' });
            refusal.quiet = true; // the store logged the outage once
            throw refusal;
          },
        );
      }
      taken = settle(p, c, key, points, r, now ?? Date.now(), taken);
    }
  }

  /** Note a charge; a refused one takes back the charges before it (nothing is forwarded) and throws the 429. */
  function settle(p: Plan, c: Counter, key: string, points: number, res: Count, now: number, taken: Taken): Taken {
    note(c, key, res.used, now + res.msBeforeNext);
    if (res.refused) {
      if (taken) refund(taken);
      p.svc.refused++;
      throw tooMany(c, points, res.used, res.msBeforeNext);
    }
    (taken ??= []).push([c, key, points]);
    return taken;
  }

  function refund(taken: [Counter, string, number][]): void {
    for (const [c, key, points] of taken) c.counter().reward(key, points);
  }

  function note(c: Counter, key: string, used: number, resetAt: number): void {
    const s = c.seen.get(key);
    if (s) { s.used = used; s.resetAt = resetAt; } else c.seen.set(key, { used, resetAt });
  }

  /**
   * The upstream counted more than we did (other users of the IP, another window start): charge the
   * difference. With a share of the limit, what the upstream has left bounds what this process has left.
   */
  function learn(c: Counter, key: string, count: number): void {
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

  function ban(svc: ServiceLimits, status: number, retryAfter: string): void {
    const secs = retryAfterSeconds(retryAfter);
    if (!secs) return;
    const until = Date.now() + secs * 1000;
    if (until <= svc.bannedUntil) return;
    svc.bannedUntil = until;
    logger.warn(`upstream of ${svc.id} answered ${status} with Retry-After ${retryAfter}: refusing its rate-limited requests locally for ${secs} s, so that the IP ban does not escalate`);
    // Other gateway processes sharing the store see the egress IP's counters full until then.
    for (const c of svc.counters) {
      if (c.limit.countedBy === 'ip') c.counter().block('ip', secs);
    }
  }

  function banned(svc: ServiceLimits, now: number): GatewayError {
    svc.refused++;
    const secs = Math.max(1, Math.ceil((svc.bannedUntil - now) / 1000));
    return new GatewayError('tooManyRequests', `Too many requests: the exchange refused the gateway's IP (429/418 with Retry-After) until ${new Date(svc.bannedUntil).toISOString()}; the gateway refuses locally until then so that the ban does not escalate. Retry after ${secs} s.`, { 'retry-after': String(secs) });
  }

  return {
    hook,
    active: () => services.size > 0,
    apply,
    gauges: () => ({ ...gauges(services), rate_limit_store_up: store.up() ? 1 : 0 }),
    chargeFrame,
    close: () => store.close(),
  };
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

/** The limits a route's requests count against, and what each costs. */
function plan(route: Route, svc: ServiceLimits | undefined): Plan | null {
  const ep = route.endpoint.endpoint;
  if (!svc || ep.builder) return null; // a builder answers locally: the upstream counts nothing
  const charges: Plan['charges'] = [];
  const learn: Counter[] = [];
  const w = ep.weight;
  for (const c of svc.counters) {
    const l = c.limit;
    if (l.pathPrefix && !ep.path.startsWith(l.pathPrefix)) continue;
    if (l.kind === 'ORDERS' && !l.counts?.includes(ep.key)) continue;
    if (c.header) learn.push(c);
    if (l.kind === 'REQUEST_WEIGHT') {
      if (!w || (l.countedBy !== 'token' && w.per !== WEIGHT_PER[l.countedBy])) continue;
      charges.push({ c, cost: w.value !== undefined ? Math.ceil(w.value) : null });
    } else {
      charges.push({ c, cost: 1 });
    }
  }
  return { svc, charges, weight: w, learn };
}

/** What a websocket-API method's frames count against: its weight, and one order if ORDERS counts it. */
function framePlan(m: WsMethod, svc: ServiceLimits | undefined): Plan | null {
  if (!svc) return null;
  const charges: Plan['charges'] = [];
  const w = m.weight;
  for (const c of svc.counters) {
    const l = c.limit;
    if (l.kind === 'REQUEST_WEIGHT') {
      // The exchange counts websocket-API weight in the same budget as REST (whatever REST path family the limit names).
      if (!w || (l.countedBy !== 'token' && w.per !== WEIGHT_PER[l.countedBy])) continue;
      charges.push({ c, cost: w.value !== undefined ? Math.ceil(w.value) : null });
    } else if (l.kind === 'ORDERS' && l.counts?.includes(`ws-api ${m.name}`)) {
      charges.push({ c, cost: 1 });
    }
  }
  return charges.length ? { svc, charges, weight: w, learn: [] } : null;
}

/** Whose count: the egress IP is one key for every client; an account is its API key, hashed (never stored as sent). */
function keyOf(c: Counter, svc: ServiceLimits, headers: IncomingHttpHeaders): string {
  if (c.limit.countedBy === 'ip') return 'ip';
  const k = c.limit.countedBy === 'apiKey' && svc.apiKeyHeader ? headers[svc.apiKeyHeader] : undefined;
  const a = headers.authorization;
  // Limits run after signing: in signing mode the key is the gateway's own, the one actually sent.
  return keyFor(c.limit.countedBy, typeof k === 'string' ? k : undefined, typeof a === 'string' ? a : undefined);
}

function keyFor(countedBy: RateLimit['countedBy'], apiKey: string | undefined, authorization: string | undefined): string {
  switch (countedBy) {
    case 'ip':
      return 'ip';
    case 'apiKey':
      return apiKey ? digest(apiKey) : 'gateway'; // no key sent: the gateway's own account
    case 'token':
      return authorization ? digest(authorization) : 'anonymous';
  }
}

const digest = (s: string) => createHash('sha256').update(s).digest('base64url').slice(0, 22);

function tooMany(c: Counter, points: number, used: number, msBeforeNext: number): GatewayError {
  const secs = Math.max(1, Math.ceil(msBeforeNext / 1000));
  const l = c.limit;
  const why = points > c.budget
    ? `this request alone (${points}) is more than the exchange's ${c.what}`
    : `this request (${points}) would exceed the exchange's ${c.what}: ${Math.max(0, used)} used in the current window`;
  const headers: Record<string, string> = { 'retry-after': String(secs) };
  if (c.header) headers[c.header] = String(Math.max(0, used));
  return new GatewayError('tooManyRequests', `Too many requests: ${why}. Retry after ${secs} s.`, headers);
}

/** Retry-After as seconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); 0 when unreadable. */
function retryAfterSeconds(v: string): number {
  if (/^\d+$/.test(v.trim())) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? 0 : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

function gauges(services: Map<string, ServiceLimits>): Record<string, number> {
  const out: Record<string, number> = {};
  const now = Date.now();
  for (const svc of services.values()) {
    const id = svc.id.replace(/[^a-z0-9]+/gi, '_');
    for (const c of svc.counters) {
      // The lowest remaining over the keys with a live window (for ip there is one key).
      let remaining = c.budget;
      for (const [key, s] of c.seen) {
        if (s.resetAt <= now) c.seen.delete(key); // windows past: forget them (bounded by accounts active per window)
        else remaining = Math.min(remaining, Math.max(0, c.budget - s.used));
      }
      out[c.gauge] = remaining;
    }
    out[`rate_limit_${id}_refused_total`] = svc.refused;
    out[`rate_limit_${id}_ban_seconds`] = Math.max(0, Math.ceil((svc.bannedUntil - now) / 1000));
  }
  return out;
}
