// Start a gateway from a configuration: load the catalogue, pin every service to its release,
// build the app and listen. Used by the CLI and, in-process, by tests and benchmarks.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { builtinPlugins } from './builders/registry.js';
import type { PluginRegistry } from './builders/plugin.js';
import { UsageError } from './cli/args.js';
import { loadCatalogue } from './catalogue/load.js';
import { pinViews } from './catalogue/pin.js';
import type { ReleaseView } from './catalogue/resolve.js';
import type { Catalogue } from './catalogue/model.js';
import type { GatewayConfig } from './config.js';
import { createGateway, type Gateway, type ProxyHook } from './gateway/app.js';
import { createWebsocketGateway, type WebsocketGateway } from './gateway/websocket/index.js';
import { createLogger, type Logger } from './log.js';
import { UPSTREAM_KINDS, upstreamBase } from './upstream/upstream-base.js';
import { securityHooks } from './upstream/signing/setup.js';

export { pinViews };

export interface RunningGateway {
  url: string;
  server: Server;
  gateway: Gateway;
  /** Websocket upgrades (/ws, /stream, /ws-api/v3) and their relays. */
  websockets: WebsocketGateway;
  views: ReleaseView[];
  close(): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  plugins?: PluginRegistry;
  beforeProxy?: ProxyHook[];
  /** Websocket limits: bytes waiting for a slow client before it is closed (default 4 MiB). */
  websocket?: { maxBufferedBytes?: number; shutdownGraceMs?: number };
}

/** REST upstream per service: service.yaml's default, overridden by "<service>" or "<service>.rest". */
export function restUpstreams(catalogue: Catalogue, overrides: Record<string, string>): Record<string, string> {
  const kinds: readonly string[] = UPSTREAM_KINDS;
  for (const key of Object.keys(overrides)) {
    const [id, kind] = key.split('.');
    if (!catalogue.services.some((s) => s.id === id)) throw new UsageError(`--upstream names unknown service "${id}"; valid: ${catalogue.services.map((s) => s.id).join(', ')}`);
    if (kind !== undefined && !kinds.includes(kind)) throw new UsageError(`--upstream ${key}: unknown kind "${kind}"; valid: ${kinds.join(', ')}`);
  }
  const out: Record<string, string> = {};
  for (const s of catalogue.services) {
    const u = upstreamBase(s, 'rest', overrides);
    if (u) out[s.id] = u;
  }
  return out;
}

export async function startGateway(config: GatewayConfig, opts: StartOptions = {}): Promise<RunningGateway> {
  const logger = opts.logger ?? createLogger(config.logLevel);
  const started = performance.now();
  const { catalogue, fromCache } = loadCatalogue(config.catalogue);
  const views = pinViews(catalogue, config.release);
  const security = securityHooks(config, views, logger);
  const gateway = createGateway({
    views, plugins: opts.plugins ?? builtinPlugins, upstreams: restUpstreams(catalogue, config.upstreams),
    strict: config.strict, timeoutMs: config.timeoutMs, bodyLimit: config.bodyLimit, logger,
    beforeProxy: [...security.authenticate, ...(opts.beforeProxy ?? []), ...security.sign],
  });
  const server = createServer(gateway.handler);
  server.keepAliveTimeout = 65_000; // longer than common load balancers' idle timeout
  const websockets = createWebsocketGateway({
    views, upstreams: config.upstreams, strict: config.strict, timeoutMs: config.timeoutMs, maxPayload: config.bodyLimit, logger,
    maxBufferedBytes: config.wsMaxBuffered, ...opts.websocket,
  });
  server.on('upgrade', websockets.upgrade);
  gateway.metrics.addGauges(() => {
    const w = websockets.stats();
    return { websocket_open: w.open, websocket_connecting: w.connecting, websocket_accepted_total: w.accepted, websocket_refused_total: w.refused, websocket_slow_clients_total: w.slowClients };
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  for (const v of views) {
    logger.info(`service ${v.service.id}${v.release ? ` pinned at ${v.release.id}` : ''}: ${v.served.length} endpoints`);
  }
  logger.debug(`catalogue ${fromCache ? 'from cache' : 'parsed'}; ready in ${(performance.now() - started).toFixed(0)} ms`);
  return {
    url: `http://${host}:${port}`,
    server,
    gateway,
    websockets,
    views,
    close: async () => {
      await websockets.close(); // upgraded sockets would keep server.close() waiting
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await gateway.close();
    },
  };
}
