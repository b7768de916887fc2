// Admin routes under /_gateway. The probes (health = liveness, ready = readiness) are answered on
// plain node:http with nothing loaded: a load balancer asks them often, and a gateway must answer
// them from its first millisecond. Everything else — what is alive at the pin, OpenAPI, AsyncAPI,
// the docs page and release timeline, metrics — is a Koa app loaded on the first such request
// (Koa and the exporters cost start-up time a proxy that is never asked for them need not pay).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Middleware } from 'koa';
import type { ReleaseView } from '../../catalogue/resolve.js';
import type { AdminReload } from './admin-modes.js';
import { bearerToken, findToken, type TokenEntry } from '../client-auth/tokens.js';
import { crossSiteRefusal } from '../stages/cross-site.js';
import type { HandOver } from '../stages/hand-over.js';
import { isLoopback } from './loopback.js';
import type { GatewayState, ReloadOutcome, Served } from '../program/state.js';

export type { ReloadOutcome };
import type { Drift } from '../drift/drift.js';
import type { Metrics } from '../observe/metrics.js';
import { ADMIN_PATHS } from '../observe/admin-paths.js';

export interface AdminDeps {
  state: () => GatewayState;
  metrics: Metrics;
  /** GET /_gateway/drift: what live traffic shows the catalogue lacks. */
  drift?: Pick<Drift, 'report'>;
  ready: () => boolean;
  /** POST /_gateway/reload: loopback clients, or a client token with the admin right; `trigger` names which. */
  reload?: (trigger: string) => Promise<ReloadOutcome>;
  /** Client tokens admin actions are checked against (signing mode's tokens file; else none). */
  adminTokens?: () => readonly TokenEntry[];
  lastReload?: () => ReloadOutcome | undefined;
  /** More of /_gateway/health, read at each probe (the fleet's agreement). */
  health?: () => Record<string, unknown>;
  /** Who may reach the admin routes from a browser (listed origins, known host names) and who may reload. */
  guard: () => AdminGuard;
  /** A stopping gateway (--accept-grace): a reload is refused like the requests it leaves to other replicas. */
  handOver?: HandOver;
}

export interface AdminGuard {
  /** Origins the operator listed (--cors-origin, without '*'). */
  origins: ReadonlySet<string>;
  /** Host names the gateway is known by (--allowed-host and the loopback names). */
  hosts: ReadonlySet<string>;
  reload: AdminReload;
}

const PROTECTED = 'the admin routes (/_gateway/*) are for the operator';

/** The node:http handler of /_gateway/*; `own` are the gateway's own headers (release, CORS). */
export function adminHandler(deps: AdminDeps): (req: IncomingMessage, res: ServerResponse, own: Record<string, string>) => void {
  let koa: Promise<(req: IncomingMessage, res: ServerResponse) => Promise<void>> | undefined;
  const loadKoa = () => (koa ??= import('koa').then(({ default: Koa }) => {
    const app = new Koa();
    app.silent = true;
    app.use(adminRoutes(deps));
    return app.callback();
  }));
  return (req, res, own) => {
    const path = (req.url ?? '').split('?')[0];
    // Any web page can make a browser send a form POST or an image GET to 127.0.0.1, or rebind its
    // own name to it: the admin plane answers no cross-site request and no unknown Host name. The
    // readiness probe, a bare "ready" that tells a page nothing, answers any Host a load balancer uses.
    const guard = deps.guard();
    const refusal = crossSiteRefusal(guard, req.headers, PROTECTED, { sameOrigin: true, ipHosts: true, anyHost: path === '/_gateway/ready' });
    if (refusal) return sendJson(res, 403, { error: refusal }, own);
    const probe = path === '/_gateway/health' ? health(deps) : path === '/_gateway/ready' ? readiness(deps) : undefined;
    if (probe && (req.method === 'GET' || req.method === 'HEAD')) {
      const body = JSON.stringify(probe.body);
      res.writeHead(probe.status, { ...own, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    if (path === '/_gateway/reload' && deps.reload) {
      const stopping = req.method === 'POST' ? deps.handOver?.refusalOf('a reload') : undefined;
      if (stopping) return sendJson(res, stopping.status, { error: stopping.message }, { ...own, ...stopping.headers });
      return reloadRoute(deps.reload, guard, deps.adminTokens?.() ?? [], req, res, own);
    }
    for (const [k, v] of Object.entries(own)) res.setHeader(k, v);
    loadKoa().then((handle) => handle(req, res)).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify({ error: `admin routes unavailable: ${(e as Error).message}` }));
    });
  };
}

function health(deps: AdminDeps) {
  const state = deps.state();
  return {
    status: 200,
    body: {
      status: 'ok', pid: process.pid,
      releases: [...state.byId.keys()], defaultRelease: state.default.id ?? null,
      catalogue: { hash: state.hash, loadedAt: state.loadedAt }, lastReload: deps.lastReload?.() ?? null,
      services: state.default.views.map((v) => ({ id: v.service.id, release: v.release?.id ?? null, endpoints: v.served.length })),
      ...deps.health?.(),
    },
  };
}

/**
 * POST /_gateway/reload: an operator on the machine (loopback), or, in signing mode, a client whose
 * token holds the admin right; 200 applied, 422 refused (the last good program keeps serving).
 */
function reloadRoute(reload: (trigger: string) => Promise<ReloadOutcome>, guard: AdminGuard, tokens: readonly TokenEntry[], req: IncomingMessage, res: ServerResponse, own: Record<string, string>): void {
  const send = (status: number, body: unknown, extra: Record<string, string> = {}) => sendJson(res, status, body, { ...own, ...extra });
  if (req.method !== 'POST') return send(405, { error: `${req.method} not allowed on /_gateway/reload; use POST` }, { allow: 'POST' });
  // A browser sends a form or text/plain body cross-site without asking first; reload takes no body.
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded' || type === 'multipart/form-data' || type === 'text/plain') {
    return send(415, { error: `POST /_gateway/reload takes no ${type} body (a form post is what a cross-site page sends); send no body or application/json` });
  }
  let trigger = 'POST /_gateway/reload';
  if (guard.reload === 'off') return send(403, { error: 'reload over HTTP is off (--admin-reload off); send SIGHUP to the gateway process, or use --watch' });
  // Behind a proxy on this machine (nginx, an SSH tunnel, kubectl port-forward) every client is
  // "loopback": a request that says it was forwarded is not treated as one from this machine.
  const local = guard.reload === 'loopback' && isLoopback(req.socket.remoteAddress) && !forwarded(req);
  if (!local) {
    const refusal = adminRefusal(tokens, req.headers.authorization, guard.reload);
    if (typeof refusal !== 'string') return send(refusal.status, { error: refusal.error }, refusal.status === 401 ? { 'www-authenticate': 'Bearer realm="gateway"' } : {});
    trigger += ` (token "${refusal}")`;
  }
  req.resume(); // a body, if any, is not read
  reload(trigger).then((r) => send(r.ok ? 200 : 422, r), (e: unknown) => send(500, { error: (e as Error).message }));
}

const forwarded = (req: IncomingMessage) => req.headers.forwarded !== undefined || req.headers['x-forwarded-for'] !== undefined || req.headers['x-real-ip'] !== undefined;

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}

/** The name of the admin token an Authorization header carries, or why it does not do. Never echoes the token. */
function adminRefusal(tokens: readonly TokenEntry[], authorization: string | undefined, mode: AdminReload): string | { status: 401 | 403; error: string } {
  const how = mode === 'token'
    ? 'reload over HTTP needs a client token holding the admin right (--admin-reload token), or SIGHUP to the process'
    : 'reload is allowed from loopback clients that came through no proxy, or with a client token holding the admin right (signing mode), or by SIGHUP to the process';
  if (!tokens.length) return { status: 403, error: `${how}; ${mode === 'token' ? 'no tokens file is configured' : 'this gateway is not in signing mode with a tokens file'}` };
  const token = bearerToken(authorization);
  if (token === undefined) return { status: 401, error: `${how}: send Authorization: Bearer <token>` };
  const entry = token === null ? undefined : findToken(tokens, token);
  if (!entry) return { status: 401, error: `${how}: ${token === null ? 'Authorization must be "Bearer <token>"' : 'unknown client token'}` };
  if (!entry.rights.has('admin')) return { status: 403, error: `${how}: client token "${entry.name}" does not hold the admin right` };
  return entry.name;
}


/** The served release a ?release= query names (default: the default release), or undefined for an unknown one. */
function servedFor(state: GatewayState, release: string | null): Served | undefined {
  return release === null || release === '' ? state.default : state.byId.get(release);
}

/** Every view of every served release, one per service and release (the docs page documents each). */
function allViews(state: GatewayState): ReleaseView[] {
  const seen = new Set<string>();
  const out: ReleaseView[] = [];
  for (const s of state.served) {
    for (const v of s.views) {
      const key = `${v.service.id}@${v.release?.id ?? ''}`;
      if (!seen.has(key)) { seen.add(key); out.push(v); }
    }
  }
  return out;
}

/** Readiness (load balancers, Kubernetes): 503 before the listener is up and once draining began. */
function readiness(deps: AdminDeps) {
  const ready = deps.ready();
  return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'not ready' } };
}

function adminRoutes(deps: AdminDeps): Middleware {
  // Cached per served release object: a reload brings new ones.
  const catalogueJson = new WeakMap<Served, unknown>();
  const openapiJson = new WeakMap<Served, unknown>();
  const docsViews = new WeakMap<GatewayState, ReleaseView[]>();
  return async (ctx, next) => {
    if (!ctx.path.startsWith('/_gateway/')) return next();
    const state = deps.state();
    const docs = await import('../../docs/index.js');
    let views = docsViews.get(state);
    if (!views) docsViews.set(state, (views = allViews(state)));
    const page = docs.docsRoute(ctx.path, new URLSearchParams(ctx.querystring), views);
    if (page && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      ctx.status = page.status;
      ctx.set(page.headers);
      ctx.body = page.body;
      return;
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      ctx.body = { error: `${ctx.method} not allowed on ${ctx.path}` };
      return;
    }
    const served = servedFor(state, ctx.query.release === undefined ? null : String(ctx.query.release));
    switch (ctx.path) {
      case '/_gateway/catalogue':
      case '/_gateway/openapi.json': {
        if (!served) {
          ctx.status = 400;
          ctx.body = { error: `release '${String(ctx.query.release)}' is not served; served: ${[...state.byId.keys()].join(', ')}` };
          return;
        }
        if (ctx.path === '/_gateway/catalogue') {
          if (!catalogueJson.has(served)) catalogueJson.set(served, served.views.map(describe));
          ctx.body = catalogueJson.get(served);
        } else {
          if (!openapiJson.has(served)) openapiJson.set(served, (await import('../../catalogue/to-openapi.js')).toOpenApi(served.views));
          ctx.body = openapiJson.get(served);
        }
        return;
      }
      case '/_gateway/metrics':
        try {
          ctx.body = await deps.metrics.render();
          ctx.type = deps.metrics.contentType;
        } catch (e) {
          ctx.status = 503; // under --workers: the aggregate could not be gathered (a worker gone silent)
          ctx.body = { error: (e as Error).message };
        }
        return;
      case '/_gateway/drift': // operations clients asked for that the catalogue lacks; upstream answers that contradict it
        if (!deps.drift) {
          ctx.status = 404;
          ctx.body = { error: 'drift is not counted by this gateway' };
          return;
        }
        try {
          ctx.body = await deps.drift.report();
        } catch (e) {
          ctx.status = 503; // under --workers: the primary did not answer
          ctx.body = { error: (e as Error).message };
        }
        return;
      case '/_gateway/plan': // version changes: the composed plan of ?operation= at ?release=
        ({ status: ctx.status, body: ctx.body } = (await import('./plan-route.js')).planAnswer(state, ctx.query));
        return;
      default:
        ctx.status = 404;
        ctx.body = { error: `no admin route ${ctx.path}; available: ${ADMIN_PATHS.join(', ')}` };
    }
  };
}

/** What is alive at the pin, for people and tools; catalogue facts only (never configuration or secrets). */
function describe(v: ReleaseView) {
  return {
    service: v.service.id,
    title: v.service.title,
    release: v.release ? { id: v.release.id, date: v.release.date } : null,
    endpoints: v.served.map((e) => ({
      method: e.endpoint.method, path: e.endpoint.path, module: e.endpoint.module, security: e.security,
      deprecated: e.status === 'deprecated' ? e.endpoint.deprecated : undefined,
      replacement: e.status === 'deprecated' ? e.endpoint.replacement : undefined,
      builder: e.endpoint.builder,
      parameters: e.parameters.map((p) => ({ name: p.name, in: p.in, required: p.required, enum: p.enum ? v.enumValues(p.enum).map((x) => x.value) : undefined })),
    })),
    streams: v.streams.map((s) => s.name),
    wsMethods: v.wsMethods.map((m) => ({ name: m.name, deprecated: v.status(m) === 'deprecated' ? m.deprecated : undefined })),
  };
}
