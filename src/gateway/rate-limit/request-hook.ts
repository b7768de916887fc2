// The rate limiter's pipeline hook for REST requests:
//   prepare   after validation: charge every limit the request counts against; one that would go
//             over refuses the request 429 (-1003, Retry-After) and it never reaches the upstream
//   answered  learn the upstream's own counts (X-MBX-USED-WEIGHT-1M…: raise ours when it saw more,
//             e.g. other users of the same IP) and its 429/418 + Retry-After (refuse locally until then)
// It runs on every request: everything here is made once per limiter, nothing per request but the charges.
import type { Logger } from '../../log.js';
import type { Hook, RequestState } from '../pipeline.js';
import { keyOf } from './count-keys.js';
import { learn, note, refund, type Counter, type Taken } from './counters.js';
import type { Plan, Planner } from './plans.js';
import { storeFailed, tooMany } from './refusals.js';
import type { Count, CounterStore, FailMode } from './store.js';
import { ban, banned } from './upstream-ban.js';
import { requestWeight } from './weight.js';

export function requestHook(plans: Planner, store: CounterStore, fail: FailMode, logger: Logger): Hook {
  /** Charge every limit in turn; synchronous with the in-process store, a promise with Redis. */
  function charge(p: Plan, state: RequestState, now: number): void | Promise<void> {
    const starting = store.starting();
    if (starting) return starting.then(() => chargeFrom(p, state, 0, undefined));
    return chargeFrom(p, state, 0, undefined, now);
  }

  function chargeFrom(p: Plan, state: RequestState, from: number, taken: Taken | undefined, now?: number): void | Promise<void> {
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
            if (taken) refund(taken);
            throw storeFailed(store.name, e, fail);
          },
        );
      }
      taken = settle(p, c, key, points, r, now ?? Date.now(), taken);
    }
  }

  return {
    prepare(state) {
      const p = plans.route(state.route);
      if (!p) return;
      const now = Date.now();
      if (p.svc.bannedUntil > now) throw banned(p.svc, now);
      if (p.charges.length) return charge(p, state, now);
    },
    answered(state, status, headers) {
      const p = plans.route(state.route);
      if (!p) return;
      if ((status === 429 || status === 418) && headers['retry-after'] !== undefined) ban(p.svc, status, String(headers['retry-after']), logger);
      for (const c of p.learn) {
        const v = headers[c.header!];
        if (v !== undefined) learn(c, keyOf(c, p.svc, state.headers), Number(v));
      }
    },
  };
}

/** Note a charge; a refused one takes back the charges before it (nothing is forwarded) and throws the 429. */
function settle(p: Plan, c: Counter, key: string, points: number, res: Count, now: number, taken: Taken | undefined): Taken {
  note(c, key, res.used, now + res.msBeforeNext);
  if (res.refused) {
    if (taken) refund(taken);
    p.svc.refused++;
    throw tooMany(c, points, res.used, res.msBeforeNext);
  }
  (taken ??= []).push([c, key, points]);
  return taken;
}
