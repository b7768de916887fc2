// The gateway of the pinned releases: compile the program once from the catalogue views and the
// configuration, then serve it through the node:http adapter. Every catalogue route takes the one
// pipeline; Koa serves only the admin pages (admin.ts), loaded on the first one asked for.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ReleaseView } from '../catalogue/resolve.js';
import type { PluginRegistry } from '../builders/plugin.js';
import { UpstreamProxy } from '../upstream/proxy.js';
import type { Logger } from '../log.js';
import { adminHandler } from './admin.js';
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
  const fallback = program.table.fallback;
  const adapter = createHttpAdapter({
    program: () => program,
    admin: adminHandler({ table: program.table, metrics, views: opts.views, ready: opts.ready }),
    adminHeaders: (req) => ownHeaders(program.cors, req.headers.origin, fallback, undefined),
    timeoutMs: opts.timeoutMs, maxPipelined: opts.maxPipelined, metrics, logger: opts.logger,
  });
  return { handler: adapter.handler, metrics, program, adapter, close: () => proxy.close() };
}
