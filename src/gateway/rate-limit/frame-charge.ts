// Websocket-API request frames charged against the same counters as REST: the method's weight
// (REQUEST_WEIGHT) and, for a method ORDERS counts ("ws-api <method>"), one order. Synchronous,
// since frames are relayed in order: with a store that answers later (Redis) the frame is judged by
// the count last seen and counted there meanwhile.
import type { WsMethod } from '../../catalogue/model.js';
import type { GatewayError } from '../errors.js';
import { keyFor } from './count-keys.js';
import { note, refund, type Counter, type Taken } from './counters.js';
import type { Planner } from './plans.js';
import { storeDown, tooMany } from './refusals.js';
import type { Count, CounterStore, FailMode } from './store.js';
import { banned } from './upstream-ban.js';
import { requestWeight, type Params } from './weight.js';

export type ChargeFrame = (service: string, method: WsMethod, params: Params, authorization?: string) => GatewayError | undefined;

/** The frame charger of one limiter: the refusal of a frame, or undefined to forward it. */
export function frameCharger(plans: Planner, store: CounterStore, fail: FailMode): ChargeFrame {
  return (service, m, params, authorization) => {
    const p = plans.frame(service, m);
    if (!p) return undefined;
    const now = Date.now();
    if (p.svc.bannedUntil > now) return banned(p.svc, now);
    if (fail === 'closed' && !store.up()) return storeDown(store.name);
    const apiKey = typeof params.apiKey === 'string' && params.apiKey ? params.apiKey : undefined;
    const taken: Taken = [];
    for (const { c, cost } of p.charges) {
      const points = cost ?? requestWeight(p.weight!, params);
      if (points <= 0) continue;
      const key = keyFor(c.limit.countedBy, apiKey, authorization);
      const res = chargeNow(c, key, points, now);
      note(c, key, res.used, now + res.msBeforeNext);
      if (res.refused) {
        refund(taken);
        p.svc.refused++;
        return tooMany(c, points, res.used, res.msBeforeNext);
      }
      taken.push([c, key, points]);
    }
    return undefined;
  };
}

/** Charge `points` and judge at once: a store answering later is judged by the count last seen, and corrected when it answers. */
function chargeNow(c: Counter, key: string, points: number, now: number): Count {
  const r = c.counter().consume(key, points);
  if (!(r instanceof Promise)) return r;
  const s = c.seen.get(key);
  const live = s !== undefined && s.resetAt > now;
  let res: Count = { refused: false, used: (live ? s.used : 0) + points, msBeforeNext: live ? s.resetAt - now : c.limit.seconds * 1000 };
  if (res.used > c.budget) res = { ...res, refused: true, used: res.used - points };
  const refused = res.refused;
  r.then((counted) => {
    if (refused && !counted.refused) c.counter().reward(key, points); // not forwarded: take it back
    else if (!refused) note(c, key, counted.used, Date.now() + counted.msBeforeNext);
  }, () => { /* the store logged its outage; the frame was judged by the last count seen */ });
  return res;
}
