// The rate limiter of one counter store. Behind a gateway every client shares its egress IP, so one
// greedy client could get the whole deployment banned (the exchange answers 418 to an IP that keeps
// exceeding its limits, for minutes to days). The catalogue knows each limit (service.yaml
// rateLimits) and each endpoint's weight, so the gateway counts before forwarding: REST requests in
// a pipeline hook (request-hook.ts), websocket-API frames alike (frame-charge.ts), against counters
// kept across reloads (counters.ts) through per-route plans (plans.ts).
//
// Windows are fixed, starting at a key's first request (the exchange's are calendar-aligned); the
// learned counts correct the difference in the direction that matters.
import type { ReleaseView } from '../../catalogue/resolve.js';
import type { Logger } from '../../log.js';
import type { Hook } from '../pipeline.js';
import { limitsOf, type Limits } from './counters.js';
import { frameCharger, type ChargeFrame } from './frame-charge.js';
import { gauges } from './gauges.js';
import { planner } from './plans.js';
import { requestHook } from './request-hook.js';
import type { CounterStore, FailMode } from './store.js';

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
   * Charge one websocket-API request frame against the same counters as REST (frame-charge.ts).
   * Returns the refusal, or undefined to forward.
   */
  chargeFrame: ChargeFrame;
  close(): Promise<void>;
}

/**
 * `share`: how many processes count apart (--workers with the in-process store): each then keeps
 * to 1/share of every limit, so together they never exceed it. 1 when the store is shared.
 */
export function rateLimitHook(views: ReleaseView[], store: CounterStore, fail: FailMode, logger: Logger, share = 1): Limiter {
  let limits: Limits = { services: new Map(), counters: new Map() };
  const plans = planner();
  function apply(next: ReleaseView[]): void {
    limits = limitsOf(next, limits, store, share);
    plans.reset(limits.services);
  }
  apply(views);
  return {
    hook: requestHook(plans, store, fail, logger),
    active: () => limits.services.size > 0,
    apply,
    gauges: () => ({ ...gauges(limits.services), rate_limit_store_up: store.up() ? 1 : 0 }),
    chargeFrame: frameCharger(plans, store, fail),
    close: () => store.close(),
  };
}
