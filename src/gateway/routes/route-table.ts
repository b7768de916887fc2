// The routes of the pinned releases and the one lookup every caller uses (serving, lifecycle
// answers, preflight, the plan page, drift, labels): match() finds the served route of a request,
// lives() every route the catalogue knows for a path, so refused requests get a precise 404/405/410.
// The endpoints a service's not-served.yaml lists sit in the same index (declined routes, never
// served), so the router's one precedence decides between them and the catalogue's templates.
// Static paths are an exact map ("METHOD path": the hot path), templated ones a segment tree
// (match.ts). owners says which service owns a path prefix, so an unknown path is refused in the
// envelope of the one service that could own it.
import type { EndpointAt, ReleaseView } from '../../catalogue/resolve.js';
import type { NotServed, Parameter } from '../../catalogue/model.js';
import { deprecationHeaders } from './deprecation-headers.js';
import type { ParamTarget } from '../params/validate-params.js';
import type { RouteGate } from '../admission/route-gate.js';
import type { AnswerWatch } from '../../upstream/proxy.js';
import { isTemplated, parseTemplate } from '../../catalogue/path-template.js';
import { PathIndex } from './match.js';
import { profileOf, type Profile } from '../profile.js';

export interface Route {
  view: ReleaseView;
  endpoint: EndpointAt;
  /** Its service's HTTP profile (headers never forwarded, token header, version header, links). */
  readonly profile: Profile;
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

  readonly profile: Profile;

  constructor(readonly view: ReleaseView, readonly endpoint: EndpointAt, readonly deprecation: Record<string, string> | null) {
    this.profile = profileOf(view.service);
  }

  get cache(): Map<string, unknown> {
    return (this.cached ??= new Map());
  }

  get params(): ParamTarget {
    return this.target ?? this.makeTarget();
  }

  private makeTarget(): ParamTarget {
    const at = this.endpoint;
    return (this.target = {
      // JSON body fields are checked with the body (stages/validate-body.ts), not with the query text.
      label: at.endpoint.key, view: this.view, parameters: notBody(at.parameters), knownParameters: notBody(at.knownParameters), constraints: at.endpoint.constraints, cache: this.cache,
    });
  }
}

/** An endpoint the service's not-served.yaml lists: known at its path, refused with its reason, never served. */
export interface DeclinedRoute {
  readonly view: ReleaseView;
  readonly declined: NotServed;
}

/** What the catalogue knows at a path: a route of an endpoint (any status) or a declined one. */
export type KnownRoute = Route | DeclinedRoute;

export const isDeclined = (r: KnownRoute): r is DeclinedRoute => (r as DeclinedRoute).declined !== undefined;

/** A route of an endpoint alive or deprecated at its release. */
export const isServed = (r: KnownRoute): r is Route => !isDeclined(r) && (r.endpoint.status === 'alive' || r.endpoint.status === 'deprecated');

/** The method of what is known at a path. */
export const methodOf = (r: KnownRoute): string => (isDeclined(r) ? r.declined.method : r.endpoint.endpoint.method);

/** A served route and the values of its path parameters (by name, %-decoded; empty for a static path). */
export interface RouteMatch {
  route: Route;
  pathParams: Readonly<Record<string, string>> | null;
}

/** A route of `endpoint` at `view`'s release (the migrate stage's targets are routes of the upstream's release). */
export function routeOf(view: ReleaseView, endpoint: EndpointAt, deprecation: Record<string, string> | null): Route {
  return new ReleaseRoute(view, endpoint, deprecation);
}

export interface RouteTable {
  /** The served route of a request at the pin, or undefined (then lives() tells why). */
  match(method: string, path: string): RouteMatch | undefined;
  /** Every route the catalogue knows whose path `path` is an instance of, any method and status, declined ones too, best match first. */
  lives(path: string): KnownRoute[];
  /** The served route of an operation as the catalogue writes it ("GET /repos/{owner}/{repo}"). */
  byKey(key: string): Route | undefined;
  views: ReleaseView[];
  /** First path segment → the one service whose endpoints use it (null: several do). */
  owners: Map<string, ReleaseView | null>;
  /** The view answering for paths no service owns: the one versioned service, else the first. */
  fallback: ReleaseView | undefined;
}

const notBody = (ps: Parameter[]) => (ps.some((p) => p.in === 'body') ? ps.filter((p) => p.in !== 'body') : ps);
const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

export function buildRouteTable(views: ReleaseView[]): RouteTable {
  const served = new Map<string, Route>();
  const staticServed = new Map<string, Route>(); // the templated ones are found by the index, never by their literal text
  const index = new PathIndex<KnownRoute>();
  const owners = new Map<string, ReleaseView | null>();
  for (const view of views) {
    for (const endpoint of view.endpoints) {
      const ep = endpoint.endpoint;
      const route = routeOf(view, endpoint, deprecationHeaders(view, endpoint));
      if (isServed(route)) {
        served.set(ep.key, route);
        if (!isTemplated(ep.path)) staticServed.set(ep.key, route);
      }
      index.add(ep.path, route, (name) => ep.parameters.some((p) => p.name === name && p.in === 'path' && p.multiSegment === true));
      own(owners, ep.path, view);
    }
    for (const declined of view.service.notServed) {
      index.add(declined.path, { view, declined }, () => false);
      own(owners, declined.path, view);
    }
  }
  const versioned = views.filter((v) => v.release);
  return {
    match(method, path) {
      const exact = staticServed.get(`${method} ${path}`); // a static path: the one map lookup of the hot path
      if (exact !== undefined) return { route: exact, pathParams: NO_PARAMS };
      // The best path known for this method decides, whatever its status: a removed /gists/public is 410, never /gists/{gist_id}.
      const hit = index.first(path, (r) => methodOf(r) === method);
      if (!hit) return undefined;
      const route = hit.match.items.find((r): r is Route => isServed(r) && r.endpoint.endpoint.method === method);
      return route && { route, pathParams: hit.match.template ? namedValues(route, hit.match.values) : NO_PARAMS };
    },
    lives: (path) => index.matches(path).flatMap((m) => m.items),
    byKey: (key) => served.get(key),
    views, owners, fallback: versioned.length === 1 ? versioned[0] : views[0],
  };
}

/** The values of a templated route's path parameters by the names its own template gives them, %-decoded. */
function namedValues(route: Route, values: readonly string[]): Record<string, string> {
  const t = parseTemplate(route.endpoint.endpoint.path);
  const out: Record<string, string> = {};
  if (typeof t === 'string') return out;
  t.params.forEach((name, i) => (out[name] = decode(values[i])));
  return out;
}

/** A malformed %-escape stays as sent: the parameter's schema then refuses it by name. */
function decode(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The service of `view` owns the first segment of `path`, unless another service's paths use it too. */
function own(owners: Map<string, ReleaseView | null>, path: string, view: ReleaseView): void {
  const seg = firstSegment(path);
  const had = owners.get(seg);
  owners.set(seg, had === undefined || had === view ? view : null);
}

function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return end < 0 ? path : path.slice(0, end);
}

/** The view whose envelope and release answer for `path` when no route matched it. */
export function ownerOf(table: RouteTable, path: string): ReleaseView | undefined {
  return table.owners.get(firstSegment(path)) ?? table.fallback;
}
