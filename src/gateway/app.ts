// The gateway of one pinned release. Requests for proxied endpoints take the plain node:http
// hot path (proxy-path.ts); everything else — builder plugins, admin routes, refusals of unknown,
// not-yet-added or removed endpoints, CORS preflights — is a Koa app:
// route table → lifecycle → validation → handler.
import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from '@koa/cors';
import { Ajv } from 'ajv';
import Koa, { type Context } from 'koa';
import type { ReleaseView } from '../catalogue/resolve.js';
import { BuilderInputError, type PluginRegistry } from '../builders/plugin.js';
import { UpstreamProxy } from '../upstream/proxy.js';
import type { Logger } from '../log.js';
import { adminRoutes } from './admin.js';
import { errorAnswer, GatewayError } from './errors.js';
import { notServed } from './lifecycle-answers.js';
import { Metrics } from './metrics.js';
import { createProxyPath, type ProxyHook } from './proxy-path.js';
import { readBody } from './read-body.js';
import { buildRouteTable, type Route, type RouteTable } from './route-table.js';
import { checkBody } from './validate-body.js';

export type { ProxyHook, ProxyRequestState } from './proxy-path.js';

const CORS_EXPOSE = ['X-Gateway-Release', 'Deprecation', 'Sunset', 'Link', 'Retry-After'];

export interface GatewayOptions {
  views: ReleaseView[];
  plugins: PluginRegistry;
  /** Upstream REST base URL per service id. */
  upstreams: Record<string, string>;
  strict: boolean;
  timeoutMs: number;
  bodyLimit: number;
  logger: Logger;
  /** Hooks run on proxied requests (authentication first, signing last). */
  beforeProxy?: ProxyHook[];
}

export interface Gateway {
  metrics: Metrics;
  /** The request listener for node:http. */
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  /** The Koa app serving everything but proxied endpoints. */
  app: Koa;
  table: RouteTable;
  close(): Promise<void>;
}

export function createGateway(opts: GatewayOptions): Gateway {
  const table = buildRouteTable(opts.views);
  checkPlugins(table, opts.plugins);
  // Query and form values arrive as text and are coerced to the schema's types; JSON bodies
  // already carry types, so a number where a string is expected is an error, not a conversion.
  const ajv = new Ajv({ coerceTypes: true, allErrors: false, strict: false, allowUnionTypes: true });
  const jsonAjv = new Ajv({ allErrors: false, strict: false, allowUnionTypes: true });
  const proxy = new UpstreamProxy({ timeoutMs: opts.timeoutMs });
  const metrics = new Metrics();
  const proxyPath = createProxyPath({
    table, ajv, proxy, metrics, logger: opts.logger, strict: opts.strict, bodyLimit: opts.bodyLimit, hooks: opts.beforeProxy ?? [],
    upstreams: new Map(Object.entries(opts.upstreams).map(([k, v]) => [k, new URL(v)])), corsExpose: CORS_EXPOSE.join(','),
  });
  const versioned = opts.views.filter((v) => v.release);
  // Responses not owned by a service (unknown paths, admin) carry the pin when there is one.
  const defaultRelease = versioned.length === 1 ? versioned[0].release!.id : undefined;
  const defaultService = (versioned.length === 1 ? versioned[0] : opts.views[0])?.service;
  const app = new Koa();
  app.silent = true;

  app.use(async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } catch (e) {
      const route: Route | undefined = ctx.state.route;
      const a = errorAnswer(e, route?.view.service ?? defaultService, `${ctx.method} ${ctx.path}`, opts.logger);
      ctx.status = a.status;
      ctx.set(a.headers);
      if (a.body) ctx.body = a.body;
    }
    const route: Route | undefined = ctx.state.route;
    const release = route ? route.view.release?.id : defaultRelease;
    if (release) ctx.set('X-Gateway-Release', release);
    metrics.observe(route?.endpoint.endpoint.key ?? 'unmatched', ctx.status, started);
  });
  const corsHeaders = cors({ exposeHeaders: CORS_EXPOSE, maxAge: 600 });
  app.use((ctx, next) => (ctx.req.headers.origin ? corsHeaders(ctx, next) : next()));
  const admin = adminRoutes({ table, metrics, views: opts.views });

  app.use(async (ctx, next) => {
    const route = table.served.get(`${ctx.method} ${ctx.path}`);
    if (!route && ctx.path.startsWith('/_gateway/')) return admin(ctx, next);
    if (!route) {
      const { error, route: near } = notServed(table, ctx.method, ctx.path);
      ctx.state.route = near;
      throw error;
    }
    ctx.state.route = route;
    if (route.deprecation) ctx.set(route.deprecation);
    return answerBuilder(ctx, route);
  });

  async function answerBuilder(ctx: Context, route: Route): Promise<void> {
    const raw = await readBody(ctx.req, opts.bodyLimit);
    const type = ctx.get('content-type');
    if (raw.length && type && !/^application\/(.+\+)?json\b/i.test(type)) {
      throw new GatewayError(415, 'unsupportedMedia', `expected Content-Type: application/json, got ${type}`);
    }
    let body: unknown;
    try {
      body = raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
    } catch (e) {
      throw new GatewayError(400, 'invalid', `invalid JSON body: ${(e as Error).message}`);
    }
    if (body === undefined) throw new GatewayError(400, 'invalid', 'request body is empty; expected a JSON object');
    checkBody(jsonAjv, route, body);
    const plugin = opts.plugins.get(route.endpoint.endpoint.builder!)!;
    try {
      ctx.body = await plugin(body);
    } catch (e) {
      if (e instanceof BuilderInputError) throw new GatewayError(400, 'builder', e.message);
      throw e;
    }
  }

  const koa = app.callback();
  return {
    handler: (req, res) => { if (!proxyPath(req, res)) void koa(req, res); },
    metrics,
    app,
    table,
    close: () => proxy.close(),
  };
}

/** Builders named by the catalogue must exist: a missing one is a start-up error, not a 500 later. */
function checkPlugins(table: RouteTable, plugins: PluginRegistry): void {
  const missing = new Set<string>();
  for (const v of table.views) {
    for (const b of v.service.builders) if (!plugins.has(b.name)) missing.add(`${v.service.id}: builder "${b.name}" (declared in service.yaml)`);
    for (const e of v.served) if (e.endpoint.builder && !plugins.has(e.endpoint.builder)) missing.add(`${e.endpoint.key}: builder "${e.endpoint.builder}"`);
  }
  if (missing.size) throw new Error(`catalogue names builder plugins this gateway does not have: ${[...missing].join('; ')} (available: ${[...plugins.keys()].join(', ')})`);
}
