// Admin routes under /_gateway. The probes (health = liveness, ready = readiness) are answered on
// plain node:http with nothing loaded: a load balancer asks them often, and a gateway must answer
// them from its first millisecond. Everything else — what is alive at the pin, OpenAPI, AsyncAPI,
// the docs page and release timeline, metrics — is a Koa app loaded on the first such request
// (Koa and the exporters cost start-up time a proxy that is never asked for them need not pay).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Middleware } from 'koa';
import type { ReleaseView } from '../catalogue/resolve.js';
import type { Metrics } from './metrics.js';
import type { RouteTable } from './route-table.js';

export interface AdminDeps {
  table: RouteTable;
  metrics: Metrics;
  views: ReleaseView[];
  ready: () => boolean;
}

export const ADMIN_PATHS = ['/_gateway/health', '/_gateway/ready', '/_gateway/catalogue', '/_gateway/openapi.json', '/_gateway/asyncapi.json', '/_gateway/docs', '/_gateway/releases', '/_gateway/metrics'];

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
    const probe = path === '/_gateway/health' ? health(deps) : path === '/_gateway/ready' ? readiness(deps) : undefined;
    if (probe && (req.method === 'GET' || req.method === 'HEAD')) {
      const body = JSON.stringify(probe.body);
      res.writeHead(probe.status, { ...own, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    for (const [k, v] of Object.entries(own)) res.setHeader(k, v);
    loadKoa().then((handle) => handle(req, res)).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify({ error: `admin routes unavailable: ${(e as Error).message}` }));
    });
  };
}

function health(deps: AdminDeps) {
  return { status: 200, body: { status: 'ok', pid: process.pid, services: deps.views.map((v) => ({ id: v.service.id, release: v.release?.id ?? null, endpoints: v.served.length })) } };
}

/** Readiness (load balancers, Kubernetes): 503 before the listener is up and once draining began. */
function readiness(deps: AdminDeps) {
  const ready = deps.ready();
  return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'not ready' } };
}

function adminRoutes(deps: AdminDeps): Middleware {
  let catalogueJson: unknown;
  let openapiJson: unknown;
  return async (ctx, next) => {
    if (!ctx.path.startsWith('/_gateway/')) return next();
    const docs = await import('../docs/index.js');
    const page = docs.docsRoute(ctx.path, new URLSearchParams(ctx.querystring), deps.views);
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
    switch (ctx.path) {
      case '/_gateway/catalogue':
        ctx.body = catalogueJson ??= deps.views.map(describe);
        return;
      case '/_gateway/openapi.json':
        ctx.body = openapiJson ??= (await import('../catalogue/to-openapi.js')).toOpenApi(deps.views);
        return;
      case '/_gateway/metrics':
        try {
          ctx.body = await deps.metrics.render();
          ctx.type = deps.metrics.contentType;
        } catch (e) {
          ctx.status = 503; // under --workers: the aggregate could not be gathered (a worker gone silent)
          ctx.body = { error: (e as Error).message };
        }
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
