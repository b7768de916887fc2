// The admission gates of one gateway, one per proxied route and release, kept across reloads (a
// reload compiles new Route objects; the limit a route learned and the requests it holds carry
// over). A route finds its gate once and keeps it on the Route: no lookup per request.
import type { Metrics } from '../observe/metrics.js';
import { RouteGate, type AdmissionSettings, type RefusalCounter } from './route-gate.js';

export type { AdmissionSettings };

/**
 * What a gate is found by and kept on: the route's release and endpoint key, and its gate slot. The
 * route table's Route has these; they are named here so admission/ does not import routes/, whose
 * Route names RouteGate (the folders would depend on each other).
 */
interface GatedRoute {
  readonly view: { readonly release: { readonly id: string } | null };
  readonly endpoint: { readonly endpoint: { readonly key: string } };
  gate: RouteGate | undefined;
}

export class Admission {
  private readonly gates = new Map<string, RouteGate>();

  constructor(private settings: AdmissionSettings, private readonly refusals: RefusalCounter) {}

  /** The gate of `route`, made on its first proxied request and remembered on the route. */
  gateOf(route: GatedRoute): RouteGate {
    const release = route.view.release?.id ?? '';
    const key = `${release} ${route.endpoint.endpoint.key}`;
    let gate = this.gates.get(key);
    if (!gate) this.gates.set(key, (gate = new RouteGate(route.endpoint.endpoint.key, this.settings, this.refusals)));
    return (route.gate = gate);
  }

  /** Settings of a reload: ceilings, queue bounds. */
  configure(settings: AdmissionSettings): void {
    this.settings = settings;
    for (const g of this.gates.values()) g.configure(settings);
  }

  /** Limit, requests at the upstream and queue depth per route; requests shed in total. */
  observe(metrics: Metrics): void {
    const family = (read: (g: RouteGate) => number) => () => [...this.gates].map(([key, g]): [Record<string, string>, number] => {
      const release = key.slice(0, key.indexOf(' '));
      const [method, route] = g.name.split(' ');
      return [{ method, route, release }, read(g)];
    });
    metrics.addGaugeFamily('gateway_route_concurrency_limit', 'Adaptive limit of requests a route may have at its upstream at once (follows the upstream\'s latency).', ['method', 'route', 'release'], family((g) => g.limit.limit));
    metrics.addGaugeFamily('gateway_route_inflight', 'Requests of a route at its upstream now.', ['method', 'route', 'release'], family((g) => g.inflight));
    metrics.addGaugeFamily('gateway_route_queue_depth', 'Requests of a route waiting for a slot at its upstream.', ['method', 'route', 'release'], family((g) => g.queued));
    metrics.addCounter('gateway_route_shed_total', 'Requests refused 503 because their route\'s queue was full or they waited past --route-queue-wait.', () => {
      let n = 0;
      for (const g of this.gates.values()) n += g.shed;
      return n;
    });
  }
}
