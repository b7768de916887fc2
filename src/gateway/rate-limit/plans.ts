// What one route's requests, or one websocket-API method's frames, count against: worked out on
// first use and kept per Route / WsMethod, weakly, so a reload can drop a compiled program (and
// the catalogue it references) once its last request is done.
import type { Weight, WsMethod } from '../../catalogue/model.js';
import type { Route } from '../routes/route-table.js';
import type { Counter, ServiceLimits } from './counters.js';

export interface Plan {
  svc: ServiceLimits;
  /** cost null: the endpoint's conditional weight, computed per request. */
  charges: { c: Counter; cost: number | null }[];
  weight?: Weight;
  /** Counters whose upstream header this route's answers carry. */
  learn: Counter[];
}

/** Plans of the limits counted now (null: nothing to count); reset() when the limits change. */
export interface Planner {
  route(route: Route): Plan | null;
  frame(service: string, m: WsMethod): Plan | null;
  reset(services: Map<string, ServiceLimits>): void;
}

/** Which weights a REQUEST_WEIGHT limit sums: the exchange's IP weights per IP, UID weights per account. */
const WEIGHT_PER = { ip: 'IP', apiKey: 'UID' } as const;

export function planner(): Planner {
  let services = new Map<string, ServiceLimits>();
  let routes = new WeakMap<Route, Plan | null>();
  let frames = new WeakMap<WsMethod, Plan | null>();
  return {
    route(route) {
      let p = routes.get(route);
      if (p === undefined) routes.set(route, (p = routePlan(route, services.get(route.view.service.id))));
      return p;
    },
    frame(service, m) {
      let p = frames.get(m);
      if (p === undefined) frames.set(m, (p = framePlan(m, services.get(service))));
      return p;
    },
    reset(next) {
      services = next;
      routes = new WeakMap();
      frames = new WeakMap();
    },
  };
}

/** The limits a route's requests count against, and what each costs. */
function routePlan(route: Route, svc: ServiceLimits | undefined): Plan | null {
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
