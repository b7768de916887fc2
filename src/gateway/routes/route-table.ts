// The routes of the pinned releases: an exact-match map on "METHOD path" (catalogue paths are
// static, and a map is ~4x faster than a linear router at this route count), an index of every
// path the catalogue knows so refused requests get a precise 404/405/410, and which service owns a
// path prefix, so an unknown path is refused in the envelope of the one service that could own it.
import type { EndpointAt, ReleaseView } from '../../catalogue/resolve.js';
import { deprecationHeaders } from './deprecation-headers.js';
import type { ParamTarget } from '../params/validate-params.js';
import type { RouteGate } from '../admission/route-gate.js';
import type { AnswerWatch } from '../../upstream/proxy.js';

export interface Route {
  view: ReleaseView;
  endpoint: EndpointAt;
  /** Per-route state other stages cache lazily (compiled validators). */
  readonly cache: Map<string, unknown>;
  /** What the parameter validator checks for this route. */
  readonly params: ParamTarget;
  /** Deprecation / Link / Sunset headers when deprecated at the pin, else null. */
  deprecation: Record<string, string> | null;
  /** Its admission to the upstream (adaptive limit and queue), found on its first proxied request. */
  gate: RouteGate | undefined;
  /** What drift watches of the upstream's answers to it (null: nothing), found on its first proxied request. */
  watch: AnswerWatch | null | undefined;
}

/**
 * A route of one release. A gateway serving every release holds one per endpoint and release, most
 * never asked for: the cache and the validator's target are made on the route's first request.
 */
class ReleaseRoute implements Route {
  gate: RouteGate | undefined = undefined;
  watch: AnswerWatch | null | undefined = undefined;
  private cached: Map<string, unknown> | undefined;
  private target: ParamTarget | undefined;

  constructor(readonly view: ReleaseView, readonly endpoint: EndpointAt, readonly deprecation: Record<string, string> | null) {}

  get cache(): Map<string, unknown> {
    return (this.cached ??= new Map());
  }

  get params(): ParamTarget {
    return this.target ?? this.makeTarget();
  }

  private makeTarget(): ParamTarget {
    const at = this.endpoint;
    return (this.target = {
      label: at.endpoint.key, view: this.view, parameters: at.parameters, knownParameters: at.knownParameters, constraints: at.endpoint.constraints, cache: this.cache,
    });
  }
}

export interface RouteTable {
  /** Served at the pin, by "METHOD path". */
  served: Map<string, Route>;
  /** Every endpoint the catalogue knows, by path, with its status at the pin. */
  known: Map<string, Route[]>;
  views: ReleaseView[];
  /** First path segment → the one service whose endpoints use it (null: several do). */
  owners: Map<string, ReleaseView | null>;
  /** The view answering for paths no service owns: the one versioned service, else the first. */
  fallback: ReleaseView | undefined;
}

export function buildRouteTable(views: ReleaseView[]): RouteTable {
  const served = new Map<string, Route>();
  const known = new Map<string, Route[]>();
  const owners = new Map<string, ReleaseView | null>();
  for (const view of views) {
    for (const endpoint of view.endpoints) {
      const ep = endpoint.endpoint;
      const route = new ReleaseRoute(view, endpoint, deprecationHeaders(view, endpoint));
      if (endpoint.status === 'alive' || endpoint.status === 'deprecated') served.set(ep.key, route);
      const lives = known.get(ep.path);
      if (lives) lives.push(route);
      else known.set(ep.path, [route]);
      const seg = firstSegment(ep.path);
      const had = owners.get(seg);
      owners.set(seg, had === undefined || had === view ? view : null);
    }
  }
  const versioned = views.filter((v) => v.release);
  return { served, known, views, owners, fallback: versioned.length === 1 ? versioned[0] : views[0] };
}

function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return end < 0 ? path : path.slice(0, end);
}

/** The view whose envelope and release answer for `path` when no route matched it. */
export function ownerOf(table: RouteTable, path: string): ReleaseView | undefined {
  return table.owners.get(firstSegment(path)) ?? table.fallback;
}
