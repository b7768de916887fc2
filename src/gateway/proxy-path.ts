// The hot path: requests for endpoints the upstream proxy answers, handled on plain node:http
// with the same stages as the rest of the gateway (lifecycle headers → hooks → security →
// validation → proxy). Koa's per-request context and response handling cost as much CPU as the
// whole forward, so these requests skip it; everything else (admin, builders, refusals of
// unknown or removed endpoints, CORS preflights) goes through the Koa app.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Ajv } from 'ajv';
import type { Logger } from '../log.js';
import type { UpstreamProxy } from '../upstream/proxy.js';
import { errorAnswer, GatewayError } from './errors.js';
import type { Metrics } from './metrics.js';
import { readBody } from './read-body.js';
import type { Route, RouteTable } from './route-table.js';
import { checkApiKey } from './security-check.js';
import { checkParams } from './validate-params.js';

export interface ProxyRequestState {
  route: Route;
  /** Raw path + query to forward; a hook may replace it (e.g. to append a signature). */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Parameters the hooks will supply, so validation does not ask the client for them. */
  supplied: Set<string>;
  /** Request headers never to forward. */
  drop: Set<string>;
}

export interface ProxyHook {
  /** Runs before validation: authenticate, declare supplied parameters. */
  admit?(state: ProxyRequestState): void;
  /** Runs after validation, just before forwarding. */
  prepare?(state: ProxyRequestState): void;
}

export interface ProxyPathOptions {
  table: RouteTable;
  ajv: Ajv;
  proxy: UpstreamProxy;
  upstreams: Map<string, URL>;
  hooks: ProxyHook[];
  strict: boolean;
  bodyLimit: number;
  metrics: Metrics;
  logger: Logger;
  corsExpose: string;
}

/** Returns a handler that answers proxied endpoints and returns false for anything else. */
export function createProxyPath(o: ProxyPathOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const route = o.table.served.get(`${req.method} ${path}`);
    if (!route || route.endpoint.endpoint.builder) return false;
    const started = performance.now();
    const own: Record<string, string> = {};
    if (route.view.release) own['x-gateway-release'] = route.view.release.id;
    if (req.headers.origin) {
      own['access-control-allow-origin'] = '*';
      own['access-control-expose-headers'] = o.corsExpose;
      own.vary = 'Origin';
    }
    if (route.deprecation) Object.assign(own, route.deprecation);
    forward(route, req, res, url, q < 0 ? '' : url.slice(q + 1), own).catch((e) => {
      const a = errorAnswer(e, route.view.service, `${req.method} ${path}`, o.logger);
      if (a.body && !res.headersSent) {
        const body = JSON.stringify(a.body);
        res.writeHead(a.status, { ...own, ...a.headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      } else if (!res.writableEnded) {
        res.destroy();
      }
      res.statusCode = a.status;
    }).finally(() => o.metrics.observe(route.endpoint.endpoint.key, res.statusCode, started));
    return true;
  };

  async function forward(route: Route, req: IncomingMessage, res: ServerResponse, url: string, query: string, own: Record<string, string>): Promise<void> {
    const state: ProxyRequestState = { route, url, headers: req.headers, body: EMPTY, supplied: new Set(), drop: new Set(['authorization']) };
    for (const h of o.hooks) h.admit?.(state);
    checkApiKey(route, req.headers, state.supplied);
    state.body = await readBody(req, o.bodyLimit);
    const values: Record<string, string> = {};
    collect(values, query, route);
    if (state.body.length && /^application\/x-www-form-urlencoded/i.test(req.headers['content-type'] ?? '')) {
      collect(values, state.body.toString('utf8'), route); // the exchange signs and reads query + body as one set
    }
    checkParams(o.ajv, route.params, values, req.headers, { strict: o.strict, supplied: state.supplied });
    for (const h of o.hooks) h.prepare?.(state);
    const base = o.upstreams.get(route.view.service.id);
    if (!base) throw new GatewayError(502, 'upstream', `no upstream configured for service ${route.view.service.id}`);
    await o.proxy.forward(base, { method: req.method!, url: state.url, headers: state.headers, body: state.body, drop: state.drop }, res, own);
  }
}

const EMPTY = Buffer.alloc(0);

/** Add the parameters of a query or form text; one sent twice is refused (the exchange does too). */
function collect(into: Record<string, string>, text: string, route: Route): void {
  if (!text) return;
  for (const [k, v] of new URLSearchParams(text)) {
    if (k in into) {
      const release = route.view.release ? ` at ${route.view.release.id}` : '';
      throw new GatewayError(400, 'duplicate', `Parameter '${k}' was sent more than once (${route.endpoint.endpoint.key}${release}).`);
    }
    into[k] = v;
  }
}
