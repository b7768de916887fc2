// Start a gateway from a configuration: load the catalogue, pin every service to its release,
// build the app and listen. Used by the CLI and, in-process, by tests and benchmarks.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { builtinPlugins } from './builders/registry.js';
import type { PluginRegistry } from './builders/plugin.js';
import type { BuilderPool } from './builders/pool/pool.js';
import { UsageError } from './usage-error.js';
import { loadCatalogue } from './catalogue/load.js';
import { pinViews } from './catalogue/pin.js';
import type { ReleaseView } from './catalogue/resolve.js';
import type { Catalogue } from './catalogue/model.js';
import type { GatewayConfig } from './config.js';
import { createGateway, type Gateway, type Hook } from './gateway/app.js';
import { defaultHosts } from './gateway/cross-site.js';
import type { WebsocketGateway, WebsocketOptions } from './gateway/websocket/index.js';
import { createLogger, type Logger } from './log.js';
import { UPSTREAM_KINDS, upstreamBase } from './upstream/upstream-base.js';
import { securityHooks } from './gateway/signing/setup.js';
import { rateLimiting } from './gateway/rate-limit/setup.js';

export { pinViews };

export interface RunningGateway {
  url: string;
  server: Server;
  gateway: Gateway;
  /** Websocket upgrades (/ws, /stream, /ws-api/v3) and their relays. */
  websockets: WebsocketGateway;
  views: ReleaseView[];
  /** False until listening, and again once draining began: /_gateway/ready answers 503 then. */
  ready(): boolean;
  /** Stop accepting, let in-flight requests finish (at most `graceMs`, default the configured grace), close everything. */
  close(graceMs?: number): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  plugins?: PluginRegistry;
  beforeProxy?: Hook[];
  /** Websocket limits: bytes waiting for a slow client before it is closed (default 4 MiB). */
  websocket?: { maxBufferedBytes?: number; shutdownGraceMs?: number };
}

/**
 * Write a last answer and close. The socket is destroyed once the answer is flushed (or after a
 * second): an http server keeps half-open sockets, and a client that never closes its side would
 * otherwise hold the descriptor for good.
 */
function refuseSocket(socket: Duplex, text: string): void {
  socket.end(text);
  socket.once('finish', () => socket.destroy());
  setTimeout(() => socket.destroy(), 1000).unref();
}

/**
 * The builder pool, started on the first build: threads and WASM cost start-up time and memory a
 * gateway that only proxies never needs. The registry's names are known without loading anything.
 */
function lazyBuilderPool(config: GatewayConfig): { plugins: PluginRegistry; close(): Promise<void> } {
  let pool: Promise<BuilderPool> | undefined;
  const get = () => (pool ??= import('./builders/pool/pool.js').then((m) => m.createBuilderPool({
    threads: config.builderThreads, maxQueue: config.builderQueue, deadlineMs: config.builderDeadlineMs,
  })));
  const plugins = new Map([...builtinPlugins.keys()].map((name) => [name, async (body: unknown) => (await get()).run(name, body)]));
  return { plugins, close: async () => { if (pool) await (await pool).close(); } };
}

/**
 * The websocket side, loaded on the first upgrade (the ws package and the relay cost start-up time
 * a REST-only client never needs). Until then it counts zeros and closes at once.
 */
function lazyWebsockets(opts: WebsocketOptions): WebsocketGateway {
  let loaded: Promise<WebsocketGateway> | undefined;
  let real: WebsocketGateway | undefined;
  const load = () => (loaded ??= import('./gateway/websocket/index.js').then((m) => (real = m.createWebsocketGateway(opts))));
  return {
    upgrade(req, socket, head) {
      socket.on('error', () => {}); // a reset while the module loads must not be an unhandled 'error'
      load().then((w) => w.upgrade(req, socket, head), (e: unknown) => {
        opts.logger.error(`websocket support failed to load: ${(e as Error).message}`);
        socket.destroy();
      });
    },
    stats: () => real?.stats() ?? { open: 0, connecting: 0, accepted: 0, refused: 0, slowClients: 0 },
    close: async () => { if (loaded) await (await loaded).close(); },
  };
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
  const limits = rateLimiting(config, views, logger);
  let ready = false;
  const builders = opts.plugins ? undefined : lazyBuilderPool(config);
  const gateway = createGateway({
    views, plugins: opts.plugins ?? builders!.plugins, upstreams: restUpstreams(catalogue, config.upstreams),
    strict: config.strict, timeoutMs: config.timeoutMs, bodyLimit: config.bodyLimit, logger,
    hooks: [...security.authenticate, ...(opts.beforeProxy ?? []), ...limits.hooks, ...security.sign],
    corsOrigins: config.corsOrigins, credentialed: security.credentialed, allowedHosts: [...defaultHosts(config.host), ...(config.allowedHosts ?? [])],
    maxPipelined: config.maxPipelined, upstreamConnections: config.upstreamConnections, maxInflightPerRoute: config.routeConcurrency,
    ready: () => ready,
  });
  // Connection bounds: headers must arrive promptly, a whole request within the deadline (the
  // adapter answers 408 then; node's own check is the backstop), idle keep-alive sockets close, and
  // connections past the cap are closed at once rather than starving everyone of descriptors.
  const server = createServer({
    headersTimeout: config.headersTimeoutMs, requestTimeout: Math.max(config.timeoutMs + 5000, config.headersTimeoutMs),
    keepAliveTimeout: config.keepAliveTimeoutMs, connectionsCheckingInterval: 1000,
  }, gateway.handler);
  // Not server.maxConnections: on Node 20 a connection it drops stops the server's header and
  // request timeouts for every other connection. Counting here refuses the excess with a 503 instead.
  let open = 0;
  server.on('connection', (socket) => {
    if (open >= config.maxConnections) {
      return refuseSocket(socket, 'HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n');
    }
    open++;
    socket.once('close', () => open--);
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    // Malformed HTTP, header timeouts, resets: answer 400/408/431 when the socket can still take it; never crash.
    if (!socket.writable || (err.code === 'ECONNRESET')) return void socket.destroy();
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    refuseSocket(socket, `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  });
  const websockets = lazyWebsockets({
    views, upstreams: config.upstreams, strict: config.strict, timeoutMs: config.timeoutMs, maxPayload: config.bodyLimit, logger,
    maxBufferedBytes: config.wsMaxBuffered, ...opts.websocket,
  });
  server.on('upgrade', (req, socket, head) => {
    try {
      websockets.upgrade(req, socket, head);
    } catch (e) {
      // The connection boundary: whatever an upgrade throws ends that socket, never the process.
      logger.error(`ws upgrade → 500: ${(e as Error)?.stack ?? String(e)}`);
      socket.destroy();
    }
  });
  gateway.metrics.addGauges(limits.limiterGauges);
  gateway.metrics.addGauges(() => {
    const w = websockets.stats();
    return { websocket_open: w.open, websocket_connecting: w.connecting, websocket_accepted_total: w.accepted, websocket_refused_total: w.refused, websocket_slow_clients_total: w.slowClients };
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  ready = true;
  // What the first proxied request would otherwise wait for, loaded once the socket listens.
  setImmediate(() => { void gateway.program.proxy.warm(); });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  for (const v of views) {
    logger.info(`service ${v.service.id}${v.release ? ` pinned at ${v.release.id}` : ''}: ${v.served.length} endpoints`);
  }
  logger.debug(`catalogue ${fromCache ? 'from cache' : 'parsed'}; ready in ${(performance.now() - started).toFixed(0)} ms`);
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    server,
    gateway,
    websockets,
    views,
    ready: () => ready,
    close: (graceMs = config.shutdownGraceMs) => (closing ??= drain(graceMs)),
  };

  /** Stop accepting, wait for in-flight requests (bounded by the grace), then close everything. */
  async function drain(graceMs: number): Promise<void> {
    ready = false;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const deadline = Date.now() + graceMs;
    const ws = websockets.close(); // upgraded sockets would keep server.close() waiting
    while (gateway.adapter.inFlight() > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
      server.closeIdleConnections(); // keep-alive sockets that just finished their last request
    }
    await ws;
    server.closeAllConnections();
    await closed;
    await gateway.close();
    await builders?.close();
    await limits.close();
  }
}
