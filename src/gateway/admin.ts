// Admin routes under /_gateway: liveness (health), readiness, what is alive at the pin, OpenAPI of the pin, metrics.
import type { Middleware } from 'koa';
import { toOpenApi } from '../catalogue/to-openapi.js';
import type { ReleaseView } from '../catalogue/resolve.js';
import type { Metrics } from './metrics.js';
import type { RouteTable } from './route-table.js';

export function adminRoutes(deps: { table: RouteTable; metrics: Metrics; views: ReleaseView[]; ready: () => boolean }): Middleware {
  let catalogueJson: unknown;
  let openapiJson: unknown;
  return async (ctx, next) => {
    if (!ctx.path.startsWith('/_gateway/')) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      ctx.body = { error: `${ctx.method} not allowed on ${ctx.path}` };
      return;
    }
    switch (ctx.path) {
      case '/_gateway/ready':
        // Readiness (load balancers, Kubernetes): 503 before the listener is up and once draining began.
        ctx.status = deps.ready() ? 200 : 503;
        ctx.body = { status: deps.ready() ? 'ready' : 'not ready' };
        return;
      case '/_gateway/health':
        ctx.body = { status: 'ok', pid: process.pid, services: deps.views.map((v) => ({ id: v.service.id, release: v.release?.id ?? null, endpoints: v.served.length })) };
        return;
      case '/_gateway/catalogue':
        ctx.body = catalogueJson ??= deps.views.map(describe);
        return;
      case '/_gateway/openapi.json':
        ctx.body = openapiJson ??= toOpenApi(deps.views);
        return;
      case '/_gateway/metrics':
        ctx.type = 'text/plain; version=0.0.4';
        ctx.body = deps.metrics.render();
        return;
      default:
        ctx.status = 404;
        ctx.body = { error: `no admin route ${ctx.path}; available: /_gateway/health, /_gateway/ready, /_gateway/catalogue, /_gateway/openapi.json, /_gateway/metrics` };
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
