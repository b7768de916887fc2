// Start a gateway from a configuration: load the catalogue, pin every service to its releases,
// compile the programs and listen. Used by the CLI and, in-process, by tests and benchmarks. The parts
// live in src/server/: reload (queue, compile, swap, summary), watch, drain, websockets, builders.
import cluster from 'node:cluster';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import type { PluginRegistry } from './builders/plugin.js';
import { listenError } from './listen-error.js';
import { loadCatalogue } from './catalogue/load.js';
import { pinReleases, pinViews, type PinnedReleases } from './catalogue/pin.js';
import type { ReleaseView } from './catalogue/resolve.js';
import type { Catalogue } from './catalogue/model.js';
import type { GatewayConfig } from './config.js';
import { createGateway, type Gateway, type Hook } from './gateway/app.js';
import type { ReloadOutcome } from './gateway/admin.js';
import { connectionOpened } from './gateway/access-record.js';
import { refuseOnSocket } from './gateway/raw-answer.js';
import { assignIdentity } from './gateway/request-id.js';
import { aggregateAcrossWorkers } from './cluster-metrics.js';
import { defaultHosts } from './gateway/cross-site.js';
import type { WebsocketGateway } from './gateway/websocket/index.js';
import { createLogger, heldLogger, type Logger } from './log.js';
import { tuneHeapForServing } from './heap-tuning.js';
import { securityHooks, type SecurityHooks } from './gateway/signing/setup.js';
import { rateLimiting, type RateLimiting } from './gateway/rate-limit/setup.js';
import { lazyBuilderPool } from './server/builders.js';
import { drain } from './server/drain.js';
import { createReloader } from './server/reload.js';
import { restUpstreams } from './server/upstreams.js';
import { watchForReload } from './server/watch.js';
import { lazyWebsockets, reportWebsockets, websocketMetrics } from './server/websockets.js';

export { pinViews, restUpstreams };

export interface RunningGateway {
  url: string;
  server: Server;
  gateway: Gateway;
  /** Websocket upgrades (the catalogue's stream and websocket-API paths) and their relays. */
  websockets: Omit<WebsocketGateway, 'afterReload'>;
  views: ReleaseView[];
  /** False until listening, and again once draining began: /_gateway/ready answers 503 then. */
  ready(): boolean;
  /** Stop accepting, let in-flight requests finish (at most `graceMs`, default the configured grace), close everything. */
  close(graceMs?: number): Promise<void>;
  /** Load, check and compile the catalogue and configuration again; swap only if all of it is valid. */
  reload(trigger?: string): Promise<ReloadOutcome>;
}

export interface StartOptions {
  logger?: Logger;
  plugins?: PluginRegistry;
  beforeProxy?: Hook[];
  /** Websocket limits: bytes waiting for a slow client before it is closed (default 4 MiB). */
  websocket?: { maxBufferedBytes?: number; shutdownGraceMs?: number };
  /** Read the configuration again on reload (the CLI re-reads flags, environment and the config file). */
  reread?: () => GatewayConfig;
  /** Told after every reload (the CLI's workers tell the primary, which reloads the others). */
  onReload?: (outcome: ReloadOutcome) => void;
}

/** What a configuration contributes to a program; recomputed on every reload. */
function programOptions(cfg: GatewayConfig, cat: Catalogue, security: SecurityHooks, limits: RateLimiting, beforeProxy: Hook[], hash: string) {
  return {
    upstreams: restUpstreams(cat, cfg.upstreams), strict: cfg.strict, bodyLimit: cfg.bodyLimit,
    hooks: [...security.authenticate, ...beforeProxy, ...limits.hooks, ...security.sign],
    corsOrigins: cfg.corsOrigins, credentialed: security.credentialed, allowedHosts: [...defaultHosts(cfg.host), ...(cfg.allowedHosts ?? [])],
    maxInflightPerRoute: cfg.routeConcurrency, hash, adminTokens: security.adminTokens, adminReload: cfg.adminReload,
    timeoutMs: cfg.timeoutMs, maxPipelined: cfg.maxPipelined, upstreamConnections: cfg.upstreamConnections,
  };
}

export async function startGateway(config: GatewayConfig, opts: StartOptions = {}): Promise<RunningGateway> {
  tuneHeapForServing();
  const logger = opts.logger ?? createLogger(config.logLevel, undefined, config.logFormat);
  const started = performance.now();
  const loaded = loadCatalogue(config.catalogue);
  const pinned = pinReleases(loaded.catalogue, config.release);
  // What set-up says is written once listening: a start-up that fails (a port in use) prints its error alone.
  const setupLog = heldLogger(logger);
  // Signing and tokens first: a misconfiguration stops start-up before anything else is set up.
  const security = securityHooks(config, pinned.default.views, setupLog);
  // Rate limits live across reloads (their counts must not reset); set up once from the first catalogue.
  const limits = rateLimiting(config, pinned.default.views, setupLog);
  let ready = false;
  const builders = opts.plugins ? undefined : lazyBuilderPool(config);
  const gateway = createGateway({
    pinned, plugins: opts.plugins ?? builders!.plugins, logger,
    ...programOptions(config, loaded.catalogue, security, limits, opts.beforeProxy ?? [], loaded.hash),
    ready: () => ready, reload: (trigger) => reloader.reload(trigger), lastReload: () => reloader.last(),
  });
  let serving: PinnedReleases = pinned;
  const reloader = createReloader(config, loaded.catalogue, {
    reread: () => opts.reread?.() ?? config, logger, onReload: opts.onReload,
    serving: () => serving, hash: () => gateway.state().hash,
    apply(cfg, next, nextPinned) {
      const nextSecurity = securityHooks(cfg, nextPinned.default.views, createLogger('silent'));
      gateway.swap(nextPinned, programOptions(cfg, next.catalogue, nextSecurity, limits, opts.beforeProxy ?? [], next.hash));
      serving = nextPinned;
      server.requestTimeout = Math.max(cfg.timeoutMs + 5000, cfg.headersTimeoutMs);
      const close = cfg.reloadClosesWebsockets;
      try {
        reportWebsockets(websockets.afterReload(gateway.state(), close), close, logger);
      } catch (e) { // a fault here must not undo the reload's report
        logger.error(`websockets after reload: ${(e as Error)?.stack ?? String(e)}`);
      }
    },
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
  const recording = { logger, metrics: gateway.metrics };
  server.on('connection', (socket) => {
    connectionOpened(socket);
    if (open >= config.maxConnections) return void refuseOnSocket(recording, socket, 503, ['Retry-After: 1']);
    open++;
    socket.once('close', () => open--);
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    // Malformed HTTP, header timeouts, resets: answer 400/408/431 when the socket can still take it; never crash.
    if (!socket.writable || (err.code === 'ECONNRESET')) return void socket.destroy();
    if ((socket as Socket & { _httpMessage?: { headersSent: boolean } })._httpMessage?.headersSent) return void socket.destroy(); // an answer is under way: no second one
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    refuseOnSocket(recording, socket as Socket, status, [], (err as { rawPacket?: Buffer }).rawPacket);
  });
  // Websocket relays take the configuration a reload last applied (upstreams, strict, deadlines, limits).
  const websockets = lazyWebsockets(gateway, (served) => {
    const cfg = reloader.config();
    return {
      views: served.views, upstreams: cfg.upstreams, strict: cfg.strict, timeoutMs: cfg.timeoutMs, maxPayload: cfg.bodyLimit, logger, metrics: gateway.metrics,
      maxBufferedBytes: cfg.wsMaxBuffered, maxHoldMs: cfg.wsMaxHoldMs, ...opts.websocket,
    };
  }, logger);
  server.on('upgrade', (req, socket, head) => {
    assignIdentity(req, performance.now()); // the upgrade's id and arrival, before the websocket module loads
    try {
      websockets.upgrade(req, socket, head);
    } catch (e) {
      // The connection boundary: whatever an upgrade throws ends that socket, never the process.
      logger.error(`ws upgrade → 500: ${(e as Error)?.stack ?? String(e)}`);
      socket.destroy();
    }
  });
  websocketMetrics(gateway.metrics, websockets);
  gateway.metrics.addCounter('gateway_reloads_applied_total', 'Reloads of the catalogue and configuration that were applied.', () => reloader.counts.applied);
  gateway.metrics.addCounter('gateway_reloads_refused_total', 'Reloads refused (an invalid catalogue or configuration); the last good program kept serving.', () => reloader.counts.refused);
  builders?.observe(gateway.metrics);
  if (cluster.isWorker) await aggregateAcrossWorkers(gateway.metrics);
  limiterMetrics(gateway, limits);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (e) {
    // Nothing was served: release what start-up opened, so the process can exit on its error.
    await gateway.close();
    await limits.close();
    throw listenError(e, config);
  }
  ready = true;
  setupLog.release();
  // What the first proxied request would otherwise wait for (undici, ~110 files), loaded just after
  // the socket listens, once the first probes have been answered.
  setTimeout(() => { void gateway.proxy().warm(); }, 100).unref();
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  announce(pinned, logger);
  logger.debug(`catalogue ${loaded.fromCache ? 'from cache' : 'parsed'}; ready in ${(performance.now() - started).toFixed(0)} ms`);
  const watching = config.watch ? watchForReload([config.catalogue, config.configFile, config.tokensFile], (t) => reloader.reload(t), logger) : undefined;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    server,
    gateway,
    websockets,
    views: pinned.default.views,
    ready: () => ready,
    close: (graceMs = reloader.config().shutdownGraceMs) => (closing ??= (ready = false, watching?.close(), drain({ server, gateway, websockets, builders, limits }, graceMs))),
    reload: (trigger = 'reload()') => reloader.reload(trigger),
  };
}

/** One line per service: what it serves. */
function announce(pinned: PinnedReleases, logger: Logger): void {
  const releases = pinned.served.map((r) => r.id).filter(Boolean);
  for (const v of pinned.default.views) {
    const at = v.release ? (releases.length > 1 ? ` serving ${releases.join(', ')} (default ${v.release.id})` : ` pinned at ${v.release.id}`) : '';
    logger.info(`service ${v.service.id}${at}: ${v.served.length} endpoints`);
  }
}

/** Remaining budget per limit, bans and refusals of the rate limiter, read at scrape time. */
function limiterMetrics(gateway: Gateway, limits: RateLimiting): void {
  for (const [name, value] of Object.entries(limits.limiterGauges())) {
    const read = () => limits.limiterGauges()[name] ?? value;
    if (name.endsWith('_total')) gateway.metrics.addCounter(`gateway_${name}`, 'Requests the rate limiter refused locally (429), never forwarded.', read);
    else gateway.metrics.addGauge(`gateway_${name}`, name.endsWith('_ban_seconds') ? 'Seconds left of an upstream ban (418/429 Retry-After) during which requests are refused locally.' : 'Weight or orders left in the current window of this limit.', read);
  }
}
