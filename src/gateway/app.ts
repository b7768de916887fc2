// The Koa app of one pinned release: route table → lifecycle → security → validation → handler.
// Handlers are a builder plugin (answered here) or the upstream proxy.
import { EventEmitter } from 'node:events';
import cors from '@koa/cors';
import { Ajv } from 'ajv';
import Koa, { type Context } from 'koa';
import type { Service } from '../catalogue/model.js';
import type { ReleaseView } from '../catalogue/resolve.js';
import { BuilderInputError, type PluginRegistry } from '../builders/plugin.js';
import { UpstreamProxy } from '../upstream/proxy.js';
import type { Logger } from '../log.js';
import { adminRoutes } from './admin.js';
import { envelope, GatewayError } from './errors.js';
import { deprecationHeaders, notServed } from './lifecycle-answers.js';
import { Metrics } from './metrics.js';
import { readBody } from './read-body.js';
import { buildRouteTable, type Route, type RouteTable } from './route-table.js';
import { checkApiKey } from './security-check.js';
import { checkBody } from './validate-body.js';
import { checkParams } from './validate-params.js';

/** Upstream answers up to this size (with a known length) are buffered rather than streamed. */
const BUFFER_LIMIT = 256 * 1024;

export interface GatewayOptions {
  views: ReleaseView[];
  plugins: PluginRegistry;
  /** Upstream REST base URL per service id. */
  upstreams: Record<string, string>;
  strict: boolean;
  timeoutMs: number;
  bodyLimit: number;
  logger: Logger;
  /** Hooks run on proxied requests before forwarding (authentication, signing). */
  beforeProxy?: ProxyHook[];
}

export interface ProxyRequestState {
  route: Route;
  /** Raw path + query to forward; a hook may replace it (e.g. to append a signature). */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** Parameters the hooks will supply, so validation does not ask the client for them. */
  supplied: Set<string>;
  /** Request headers never to forward. */
  drop: Set<string>;
}

export type ProxyHook = {
  /** Runs before validation: authenticate, declare supplied parameters. */
  admit?(ctx: Context, state: ProxyRequestState): void;
  /** Runs after validation, just before forwarding. */
  prepare?(ctx: Context, state: ProxyRequestState): void;
};

export interface Gateway {
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
  const upstreams = new Map(Object.entries(opts.upstreams).map(([k, v]) => [k, new URL(v)]));
  const metrics = new Metrics();
  const versioned = opts.views.filter((v) => v.release);
  // Responses not owned by a service (unknown paths, admin) carry the pin when there is one.
  const defaultRelease = versioned.length === 1 ? versioned[0].release!.id : undefined;
  const defaultService = (versioned.length === 1 ? versioned[0] : opts.views[0])?.service;
  const app = new Koa();
  app.silent = true;

  app.use(async (ctx, next) => {
    const started = process.hrtime.bigint();
    let route: Route | undefined;
    try {
      await next();
      route = ctx.state.route;
    } catch (e) {
      route = ctx.state.route;
      answerError(ctx, e, route?.view.service ?? defaultService, opts.logger);
    }
    const release = route ? route.view.release?.id : defaultRelease;
    if (release && !ctx.headerSent) ctx.set('X-Gateway-Release', release);
    metrics.observe(route?.endpoint.endpoint.key ?? 'unmatched', ctx.status, started);
  });
  const corsHeaders = cors({ exposeHeaders: ['X-Gateway-Release', 'Deprecation', 'Sunset', 'Link', 'Retry-After'], maxAge: 600 });
  // Only browsers' cross-origin requests carry Origin; others skip the CORS work.
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
    if (route.view.release) ctx.set('X-Gateway-Release', route.view.release.id);
    const dep = deprecationHeaders(route);
    if (dep) ctx.set(dep);
    const ep = route.endpoint.endpoint;
    if (ep.builder) return answerBuilder(ctx, route);
    const state: ProxyRequestState = {
      route, url: ctx.req.url ?? ctx.url, headers: ctx.req.headers, body: Buffer.alloc(0), supplied: new Set(), drop: new Set(['authorization']),
    };
    for (const h of opts.beforeProxy ?? []) h.admit?.(ctx, state);
    checkApiKey(route, ctx.req.headers, state.supplied);
    state.body = await readBody(ctx.req, opts.bodyLimit);
    const values = Object.fromEntries(new URLSearchParams(ctx.querystring));
    if (state.body.length && /^application\/x-www-form-urlencoded/i.test(ctx.get('content-type'))) {
      Object.assign(values, Object.fromEntries(new URLSearchParams(state.body.toString('utf8'))));
    }
    checkParams(ajv, paramTarget(route), values, ctx.req.headers, { strict: opts.strict, supplied: state.supplied });
    for (const h of opts.beforeProxy ?? []) h.prepare?.(ctx, state);
    await answerProxy(ctx, route, state);
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

  async function answerProxy(ctx: Context, route: Route, state: ProxyRequestState): Promise<void> {
    const base = upstreams.get(route.view.service.id);
    if (!base) throw new GatewayError(502, 'upstream', `no upstream configured for service ${route.view.service.id}`);
    // A response closed before it finished means the client went away: abort the upstream call.
    // (The request's own 'close' fires as soon as its body is read, so it cannot tell.)
    const abort = new EventEmitter();
    ctx.res.once('close', () => { if (!ctx.res.writableFinished) abort.emit('abort'); });
    const res = await proxy.forward(base, {
      method: ctx.method, url: state.url, headers: state.headers, body: state.body, signal: abort, drop: state.drop,
    });
    ctx.status = res.status;
    const length = Number(res.headers['content-length'] ?? NaN);
    delete res.headers['content-length'];
    if (length <= BUFFER_LIMIT) {
      // Most answers are small. Write them in one go, bypassing Koa's response handling, which
      // costs as much CPU as the whole forward; the headers set so far (CORS, release,
      // deprecation) go out with the upstream's.
      const chunks: Buffer[] = [];
      for await (const chunk of res.body) chunks.push(chunk as Buffer);
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      ctx.respond = false;
      ctx.res.writeHead(res.status, { ...res.headers, ...ctx.res.getHeaders(), 'content-length': body.length });
      ctx.res.end(body);
    } else {
      ctx.set(res.headers);
      ctx.body = res.body;
      res.body.on('error', () => { /* client gone or upstream reset: nothing to answer any more */ });
      if (length >= 0) ctx.length = length;
    }
    if (!res.headers['content-type']) ctx.remove('Content-Type'); // Koa would label the body octet-stream
  }

  return {
    app,
    table,
    close: () => proxy.close(),
  };
}

function paramTarget(route: Route) {
  const ep = route.endpoint;
  return {
    label: ep.endpoint.key, view: route.view, parameters: ep.parameters, knownParameters: ep.knownParameters,
    constraints: ep.endpoint.constraints, cache: route.cache,
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

function answerError(ctx: Context, e: unknown, service: Service | undefined, logger: Logger): void {
  if (e instanceof GatewayError) {
    ctx.status = e.status;
    ctx.set(e.headers);
    ctx.body = envelope(service, e.reason, e.message);
    if (e.status >= 500) logger.warn(`${ctx.method} ${ctx.path} → ${e.status}: ${e.message}`);
    return;
  }
  if ((e as Error)?.name === 'AbortError' || (e as { code?: string })?.code === 'UND_ERR_ABORTED') {
    ctx.status = 499; // client closed the request: nobody is listening for an answer
    return;
  }
  logger.error(`${ctx.method} ${ctx.path} → 500: ${(e as Error)?.stack ?? String(e)}`);
  ctx.status = 500;
  ctx.body = envelope(service, 'unknown', 'internal gateway error');
}
