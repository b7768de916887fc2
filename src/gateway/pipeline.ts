// The one request pipeline. Every catalogue route — proxied or built locally — runs the same
// stages, in this order, whatever adapter received it:
//
//   route → own headers → hand-over (a stopping gateway, --accept-grace) → admit (hooks,
//         cross-site guard) → security at the pin → read body
//         → parameters → body schema → migrate (version changes) → prepare (hooks)
//         → handler (upstream proxy | builder; a migrated answer comes back down its plan)
//
// Stages are plain functions over one Exchange and throw GatewayError. The node:http adapter renders
// what they throw with render() (errors.ts, through transport/failure-answer.ts); websocket refusals and the
// Koa admin routes answer in their own shapes (a frame, an upgrade refusal, admin JSON), and every
// answer that speaks for a service carries its envelope() from the same reason table.
import { checkCrossSite } from './stages/cross-site.js';
import { ClientGone, GatewayError } from './errors.js';
import { notServed } from './routes/lifecycle-answers.js';
import { ownHeaders, preflightHeaders, credentialed } from './stages/own-headers.js';
import { forEachParam } from './params/form-params.js';
import { hasBody, readBody } from './stages/read-body.js';
import { isServed, ownerOf, type Route } from './routes/route-table.js';
import { checkApiKey } from './stages/security-check.js';
import { checkBody, takesJsonBody } from './stages/validate-body.js';
import { checkParams, repeatableParams } from './params/validate-params.js';
import type { RequestState } from './request-state.js';
import type { Exchange, Program } from './stage-types.js';
import { migrateRequest } from './migrate/stage.js';
import { answerBridged, build, forward } from './stages/handlers.js';

export type { RequestState } from './request-state.js';

export type { Exchange, Hook, Program } from './stage-types.js';

const EMPTY = Buffer.alloc(0);
const JSON_TYPE = /^application\/(.+\+)?json\b/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded/i;

/**
 * A record without Object.prototype in its chain (a key such as __proto__ or constructor is an
 * ordinary name) that V8 keeps in fast mode: Object.create(null) starts in dictionary mode, slower
 * to fill and for the compiled validators to read.
 */
const ParamBag = function ParamBag() {} as unknown as new () => Record<string, string | string[]>;
ParamBag.prototype = Object.create(null);

// Shared by every request: no two Sets built per request on the proxy's hot path.
const NOTHING_SUPPLIED: ReadonlySet<string> = new Set();

/** Split a request target into path and raw query; absolute-form is accepted, a fragment is not. */
export function parseTarget(raw: string): { path: string; query: string } {
  let target = raw;
  if (target.charCodeAt(0) !== 47 /* / */) {
    const abs = /^https?:\/\/[^/?#]*/i.exec(target); // absolute-form (RFC 9112 §3.2.2)
    if (!abs) throw new GatewayError('malformed', `Malformed request target '${clip(raw)}': expected a path starting with '/'.`);
    target = target.slice(abs[0].length) || '/';
    if (target[0] === '?') target = `/${target}`;
  }
  if (target.includes('#')) throw new GatewayError('malformed', `Malformed request target: a fragment ('#…') is never part of an HTTP request.`);
  const q = target.indexOf('?');
  return q < 0 ? { path: target, query: '' } : { path: target.slice(0, q), query: target.slice(q + 1) };
}

const clip = (s: string) => (s.length > 64 ? `${s.slice(0, 64)}…` : s);

/**
 * Route stage: the served route for the request, its own headers, or the refusal. Returns false
 * when the request was a CORS preflight and has been answered.
 */
export function routeRequest(p: Program, ex: Exchange, path: string): boolean {
  const { req } = ex;
  const method = req.method === 'HEAD' ? 'GET' : req.method!; // HEAD answers every GET route (RFC 9110 §9.3.2)
  const hit = p.table.match(method, path);
  const origin = req.headers.origin;
  if (hit) {
    const route = hit.route;
    ex.route = route;
    ex.pathParams = hit.pathParams;
    ex.view = route.view;
    ex.own = ownHeaders(p.cors, origin, route.view, route);
    ex.own['x-request-id'] = ex.id;
    return true;
  }
  if (req.method === 'OPTIONS' && origin && req.headers['access-control-request-method']) return preflight(p, ex, path, origin);
  if (path === '/' && (req.method === 'GET' || req.method === 'HEAD')) {
    // Nothing in the catalogue at the root: point people at the docs page.
    ex.res.writeHead(302, { location: '/_gateway/docs', 'x-request-id': ex.id, 'content-length': 0 });
    ex.res.end();
    return false;
  }
  const refused = notServed(p.table, method, path);
  ex.view = refused.route?.view ?? refused.view ?? ownerOf(p.table, path);
  if (refused.unknown && p.drift) p.drift.unknownOperation('rest', method, path, ex.view?.service.id);
  ex.own = ownHeaders(p.cors, origin, ex.view, refused.route);
  throw refused.error;
}

function preflight(p: Program, ex: Exchange, path: string, origin: string): false {
  const known = p.table.lives(path).filter(isServed);
  const view = known[0]?.view ?? ownerOf(p.table, path);
  const methods = known.map((r) => r.endpoint.endpoint.method);
  if (methods.includes('GET')) methods.push('HEAD');
  const isCredentialed = known.some((r) => credentialed(p.cors, view, r)) || credentialed(p.cors, view, undefined);
  const h = { ...ownHeaders(p.cors, undefined, view, undefined), ...preflightHeaders(p.cors, origin, ex.req.headers['access-control-request-headers'], methods, isCredentialed), 'x-request-id': ex.id };
  ex.res.writeHead(204, h);
  ex.res.end();
  return false;
}

/** Admission: hooks (authentication), the cross-site guard, the security requirement at the pin. */
export function admit(p: Program, state: RequestState): void {
  checkCrossSite(p.crossSite, state.route.view.service.id, state.headers);
  for (const h of p.hooks) h.admit?.(state);
  checkApiKey(state.route, state.headers, state.supplied);
}

/** Parameters of the query string (and of a form body), checked at the pin. */
export function checkParameters(p: Program, state: RequestState, query: string, pathParams?: Readonly<Record<string, string>> | null): void {
  const values = new ParamBag(); // query keys such as __proto__ are ordinary names
  state.params = values; // as checked: coerced in place to their schema types by checkParams
  const repeatable = repeatableParams(p.paramAjv, state.route.params);
  if (pathParams) for (const k in pathParams) values[k] = pathParams[k]; // checked by the same schemas as query text
  collect(values, query, state.route, repeatable);
  if (state.body.length && FORM_TYPE.test(state.headers['content-type'] ?? '')) {
    collect(values, state.body.toString('utf8'), state.route, repeatable); // the exchange signs and reads query + body as one set
  }
  checkParams(p.paramAjv, state.route.params, values, state.headers, { strict: p.strict, supplied: state.supplied });
}

/** The JSON body of an endpoint that declares a body schema, parsed and checked. */
export function checkJsonBody(p: Program, state: RequestState): unknown {
  const type = state.headers['content-type'];
  if (!state.body.length) {
    // A body of fields none of which is required may be left out (GitHub's PUT …/lock); a body: schema may not.
    const ep = state.route.endpoint;
    if (ep.endpoint.body === undefined && !ep.bodyParameters.some((b) => b.required)) return undefined;
    throw new GatewayError('invalid', 'request body is empty; expected a JSON object');
  }
  if (type && !JSON_TYPE.test(type)) throw new GatewayError('unsupportedMedia', `expected Content-Type: application/json, got ${clip(type)}`);
  let body: unknown;
  try {
    body = JSON.parse(state.body.toString('utf8'));
  } catch (e) {
    throw new GatewayError('invalid', `invalid JSON body: ${(e as Error).message}`);
  }
  checkBody(p.bodyAjv, state.route, body);
  return body;
}

/** Run a request through every stage and its handler. Throws what the adapter renders. */
export async function runPipeline(p: Program, ex: Exchange): Promise<void> {
  const { req } = ex;
  const { path, query } = parseTarget(req.url ?? '/');
  if (!routeRequest(p, ex, path)) return;
  const stopping = p.handOver.refusal(req.method); // routed first: the refusal is in the service's envelope
  if (stopping) throw stopping;
  const route = ex.route!;
  const state: RequestState = { route, url: req.url!, headers: req.headers, body: EMPTY, supplied: NOTHING_SUPPLIED, drop: route.profile.drop, own: ex.own, params: {} };
  if (state.url.charCodeAt(0) !== 47) state.url = query ? `${path}?${query}` : path; // absolute-form: forward origin-form
  admit(p, state);
  if (hasBody(req)) state.body = await readBody(req, p.bodyLimit);
  ex.bodyRead = true;
  checkParameters(p, state, query, ex.pathParams);
  const json = takesJsonBody(route) ? checkJsonBody(p, state) : undefined;
  if (p.migrate !== null) {
    const plan = p.migrate.planOf(route);
    if (plan !== null) ex.migrated = migrateRequest(p, state, plan);
    if (state.bridged) return answerBridged(p, ex, state); // the gateway answers it: no hook, nothing forwarded
  }
  for (const h of p.hooks) if (h.prepare) await h.prepare(state);
  if (ex.cancellation.gone) throw ex.cancellation.reason ?? new ClientGone(); // never act for a client that left
  const builder = route.endpoint.endpoint.builder;
  // Awaited, not returned: an async function returning a promise adopts it through two extra
  // microtask jobs (a thenable resolution), an await of a native promise through none.
  if (builder) await build(p, ex, builder, json);
  else await forward(p, ex, state);
}

/**
 * Add the parameters of a query or form text. A list parameter declared style: repeated gathers one
 * item per occurrence (asset=A&asset=B); any other key sent twice is refused (the exchange does too).
 * Only the values are read: the request is still forwarded byte for byte.
 */
function collect(into: Record<string, string | string[]>, text: string, route: Route, repeatable: ReadonlySet<string>): void {
  if (text) forEachParam(text, addParam, { into, route, repeatable });
}

interface Collecting {
  into: Record<string, string | string[]>;
  route: Route;
  repeatable: ReadonlySet<string>;
}

/** One pair of collect(): a module-level function given its context, not a closure per request. */
function addParam(k: string, v: string, c: Collecting): void {
  const had = c.into[k];
  if (had === undefined) {
    c.into[k] = v;
  } else if (c.repeatable.has(k)) {
    c.into[k] = typeof had === 'string' ? [had, v] : [...had, v];
  } else {
    const release = c.route.view.release ? ` at ${c.route.view.release.id}` : '';
    throw new GatewayError('duplicate', `Parameter '${k}' was sent more than once (${c.route.endpoint.endpoint.key}${release}).`);
  }
}
