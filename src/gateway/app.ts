// The gateway of the pinned releases: compile the program once from the catalogue views and the
// configuration, then serve it through the node:http adapter. Koa serves only the admin routes,
// where its conveniences earn their cost; every catalogue route takes the one pipeline.
import type { IncomingMessage, ServerResponse } from 'node:http';
import Koa from 'koa';
import type { ReleaseView } from '../catalogue/resolve.js';
import type { PluginRegistry } from '../builders/plugin.js';
import { UpstreamProxy } from '../upstream/proxy.js';
import type { Logger } from '../log.js';
import { adminRoutes } from './admin.js';
import { createHttpAdapter, type HttpAdapter } from './http-adapter.js';
import { Metrics } from './metrics.js';
import { ownHeaders } from './own-headers.js';
import type { Hook, Program } from './pipeline.js';
import { compileProgram, type ProgramOptions } from './program.js';

export type { Hook, RequestState, Hook as ProxyHook, RequestState as ProxyRequestState } from './pipeline.js';

export interface GatewayOptions extends Omit<ProgramOptions, 'proxy'> {
  views: ReleaseView[];
  plugins: PluginRegistry;
  timeoutMs: number;
  /** Requests of one connection in progress at once (pipelining bound). */
  maxPipelined: number;
  /** Connections to each upstream origin. */
  upstreamConnections: number;
  logger: Logger;
  hooks: Hook[];
  /** Readiness: false while loading or draining. */
  ready: () => boolean;
}

export interface Gateway {
  metrics: Metrics;
  /** The request listener for node:http. */
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  program: Program;
  adapter: HttpAdapter;
  close(): Promise<void>;
}

export function createGateway(opts: GatewayOptions): Gateway {
  const proxy = new UpstreamProxy({ timeoutMs: opts.timeoutMs, connections: opts.upstreamConnections });
  const program = compileProgram({ ...opts, proxy });
  const metrics = new Metrics();
  const app = new Koa();
  app.silent = true;
  app.use(adminRoutes({ table: program.table, metrics, views: opts.views, ready: opts.ready }));
  const koa = app.callback();
  const fallback = program.table.fallback;
  const adapter = createHttpAdapter({
    program: () => program,
    admin: (req, res, own) => {
      for (const [k, v] of Object.entries(own)) res.setHeader(k, v);
      void koa(req, res);
    },
    adminHeaders: (req) => ownHeaders(program.cors, req.headers.origin, fallback, undefined),
    timeoutMs: opts.timeoutMs, maxPipelined: opts.maxPipelined, metrics, logger: opts.logger,
  });
  return { handler: adapter.handler, metrics, program, adapter, close: () => proxy.close() };
}
