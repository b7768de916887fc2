// The routes of the pinned release: an exact-match map on "METHOD path" (catalogue paths are
// static, and a map is ~4x faster than a linear router at this route count), plus an index of
// every path the catalogue knows so refused requests get a precise 404/405/410.
import type { EndpointAt, ReleaseView } from '../catalogue/resolve.js';
import { deprecationHeaders } from './lifecycle-answers.js';
import type { ParamTarget } from './validate-params.js';

export interface Route {
  view: ReleaseView;
  endpoint: EndpointAt;
  /** Per-route state other stages cache lazily (compiled validators). */
  cache: Map<string, unknown>;
  /** What the parameter validator checks for this route. */
  params: ParamTarget;
  /** Deprecation / Link / Sunset headers when deprecated at the pin, else null. */
  deprecation: Record<string, string> | null;
}

export interface RouteTable {
  /** Served at the pin, by "METHOD path". */
  served: Map<string, Route>;
  /** Every endpoint the catalogue knows, by path, with its status at the pin. */
  known: Map<string, Route[]>;
  views: ReleaseView[];
}

export function buildRouteTable(views: ReleaseView[]): RouteTable {
  const served = new Map<string, Route>();
  const known = new Map<string, Route[]>();
  for (const view of views) {
    for (const endpoint of view.endpoints) {
      const ep = endpoint.endpoint;
      const cache = new Map<string, unknown>();
      const route: Route = {
        view, endpoint, cache, deprecation: deprecationHeaders(view, endpoint),
        params: { label: ep.key, view, parameters: endpoint.parameters, knownParameters: endpoint.knownParameters, constraints: ep.constraints, cache },
      };
      if (endpoint.status === 'alive' || endpoint.status === 'deprecated') served.set(ep.key, route);
      known.set(ep.path, [...(known.get(ep.path) ?? []), route]);
    }
  }
  return { served, known, views };
}
