// Start a gateway from a configuration: load the catalogue, pin every service to its releases,
// compile the programs and listen. Used by the CLI and, in-process, by tests and benchmarks. The parts
// live in src/server/: reload (queue, compile, swap, summary), watch, drain, websockets, builders.
import cluster from 'node:cluster';
import { hostname } from 'node:os';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PluginRegistry } from './builders/plugin.js';
import { listenError } from './listen-error.js';
import { loadCatalogueAtStart } from './catalogue/load-at-start.js';
import { pinReleases, pinViews, type PinnedReleases } from './catalogue/pin.js';
import type { ReleaseView } from './catalogue/resolve.js';
import type { Catalogue } from './catalogue/model.js';
import type { GatewayConfig } from './config.js';
import { createGateway, type Gateway, type Hook, type Served } from './gateway/app.js';
import type { ReloadOutcome } from './gateway/admin/admin.js';
import { aggregateDriftAcrossWorkers } from './cluster-drift.js';
import { aggregateAcrossWorkers } from './cluster-metrics.js';
import { defaultHosts } from './gateway/stages/cross-site.js';
import type { WebsocketGateway, WebsocketOptions } from './gateway/websocket/index.js';
import type { WsSecurity } from './gateway/websocket/security.js';
import { createLogger, heldLogger, type Logger } from './log.js';
import { tuneHeapForServing } from './heap-tuning.js';
import { securityHooks, type SecurityHooks } from './gateway/signing/setup.js';
import { rateLimiting, type RateLimiting } from './gateway/rate-limit/setup.js';
import { lazyBuilderPool } from './server/builders.js';
import { drain } from './server/drain.js';
import { createReloader, type Reloader } from './server/reload.js';
import { createHttpServer, listen, reconfigureServer } from './server/http-server.js';
import { readTls } from './server/tls.js';
import { restUpstreams } from './server/upstreams.js';
import { userDataSide } from './server/user-data.js';
import { UserDataSubscriptions } from './gateway/websocket/user-data-subscriptions.js';
import type { UserDataBridge } from './gateway/user-data/bridge.js';
import { tokenRevocation } from './server/revocation.js';
import { watchForReload } from './server/watch.js';
import { FLEET_TRIGGER, joinFleet, type Fleet } from './server/fleet.js';
import { acceptUpgrades, lazyWebsockets, websocketMetrics, websocketsAfterReload, type Websockets } from './server/websockets.js';

export { pinViews, restUpstreams };

export interface RunningGateway {
  url: string;
  /** The probes' plain-HTTP listener (--health-port), when there is one. */
  healthUrl?: string;
  server: Server;
  gateway: Gateway;
  /** Websocket upgrades (the catalogue's stream and websocket-API paths) and their relays. */
  websockets: Omit<WebsocketGateway, 'afterReload'>;
  views: ReleaseView[];
  /** The catalogue the gateway started with. */
  catalogue: Catalogue;
  logger: Logger;
  /** False until listening, and again once draining began: /_gateway/ready answers 503 then. */
  ready(): boolean;
  /**
   * Stop accepting (after handing over for `acceptGraceMs`, default --accept-grace), let in-flight
   * requests finish (at most `graceMs`, default --shutdown-grace), close everything.
   */
  close(graceMs?: number, acceptGraceMs?: number): Promise<void>;
  /** Load, check and compile the catalogue and configuration again; swap only if all of it is valid. */
  reload(trigger?: string): Promise<ReloadOutcome>;
}

export interface StartOptions {
  logger?: Logger;
  plugins?: PluginRegistry;
  beforeProxy?: Hook[];
  /** Websocket limits: bytes waiting for a slow client before it is closed (default 4 MiB). */
  websocket?: { maxBufferedBytes?: number; shutdownGraceMs?: number; userDataKeepAliveMs?: number; userDataExpiresAfterMs?: number; userDataPollMs?: number; userDataTokenParams?: Record<string, string> };
  /** Read the configuration again on reload (the CLI re-reads flags, environment and the config file). */
  reread?: () => GatewayConfig;
  /** Told after every reload (the CLI's workers tell the primary, which reloads the others). */
  onReload?: (outcome: ReloadOutcome) => void;
}

/** What a configuration contributes to a program; recomputed on every reload. */
function programOptions(cfg: GatewayConfig, cat: Catalogue, security: SecurityHooks, limits: RateLimiting, beforeProxy: Hook[], hash: string, userData: UserDataBridge | undefined) {
  return {
    upstreams: restUpstreams(cat, cfg.upstreams), strict: cfg.strict, bodyLimit: cfg.bodyLimit, migratedAnswerLimit: cfg.migratedAnswerLimit,
    // Limits after signing: an account's limits count the API key actually sent (the gateway's own in signing mode).
    hooks: [...security.authenticate, ...beforeProxy, ...security.sign, ...limits.hooks],
    corsOrigins: cfg.corsOrigins, credentialed: security.credentialed, allowedHosts: [...defaultHosts(cfg.host), ...(cfg.allowedHosts ?? [])],
    admission: { ceiling: cfg.routeConcurrency, queue: cfg.routeQueue, queueWaitMs: cfg.routeQueueWaitMs }, hash, adminTokens: security.adminTokens, adminReload: cfg.adminReload,
    timeoutMs: cfg.timeoutMs, maxPipelined: cfg.maxPipelined, upstreamConnections: cfg.upstreamConnections,
    upstreamRelease: cfg.upstreamRelease, signers: security.signers, userData,
  };
}

export async function startGateway(config: GatewayConfig, opts: StartOptions = {}): Promise<RunningGateway> {
  const started = performance.now(); // before the V8 flag: the perf modules it loads keep their code cache (heap-tuning.ts)
  tuneHeapForServing();
  const logger = opts.logger ?? createLogger(config.logLevel, undefined, config.logFormat);
  const loaded = await loadCatalogueAtStart(config.catalogue, { cacheDir: config.cacheDir });
  const pinned = pinReleases(loaded.catalogue, config.release);
  // What set-up says is written once listening: a start-up that fails (a port in use) prints its error alone.
  const setupLog = heldLogger(logger);
  // Signing, tokens and the TLS files first: a misconfiguration stops start-up before anything else is set up.
  const security = securityHooks(config, pinned.default.views, setupLog), tls = readTls(config);
  let wsSecurity = security.websocket; // [wssign] the tokens and credentials a reload last applied
  // Rate limits, the listen-key bridge and the tokens' user-data subscriptions live across reloads (counts, keys); set up once from the first catalogue.
  const limits = rateLimiting(config, pinned.default.views, setupLog), userData = userDataSide(limits, logger, { expiresAfterMs: opts.websocket?.userDataExpiresAfterMs, tokenParams: opts.websocket?.userDataTokenParams, pollMs: opts.websocket?.userDataPollMs }), userDataSubscriptions = new UserDataSubscriptions(config.userDataSubscriptionsPerToken);
  userData.apply(config, pinned.default.views, wsSecurity.signing);
  let ready = false;
  const builders = opts.plugins ? undefined : lazyBuilderPool(config);
  const beforeProxy = opts.beforeProxy ?? [];
  const gateway = createGateway({
    pinned, plugins: opts.plugins ?? builders!.plugins, logger,
    ...programOptions(config, loaded.catalogue, security, limits, beforeProxy, loaded.hash, userData.bridge),
    ready: () => ready, reload: (trigger) => reloader.reload(trigger), lastReload: () => reloader.last(),
    health: () => (fleet ? { fleet: fleet.status() } : {}),
  });
  let fleet: Fleet | undefined;
  gateway.metrics.limitSeries(config.metricsMaxSeries);
  const server = createHttpServer(config, gateway, logger, tls);
  let serving: PinnedReleases = pinned;
  const reloader = createReloader(config, loaded.catalogue, {
    reread: () => opts.reread?.() ?? config, logger,
    onReload(outcome) {
      // A reload this replica was asked for tells the fleet; one the fleet asked for does not echo.
      if (fleet && outcome.ok && outcome.hash && !outcome.trigger.startsWith(FLEET_TRIGGER)) fleet.publish(outcome.hash);
      opts.onReload?.(outcome);
    },
    serving: () => serving, hash: () => gateway.state().hash,
    revoke: (cfg) => revocation.reread(cfg.tokensFile),
    apply(cfg, next, nextPinned) {
      const nextSecurity = securityHooks(cfg, nextPinned.default.views, createLogger('silent')), nextTls = readTls(cfg); // a bad TLS file refuses the reload
      // The limits and settings of the new catalogue and configuration, counts kept by limit; back if the swap fails.
      const before = reloader.config();
      const reconfigure = (c: GatewayConfig, views: ReleaseView[], w: WsSecurity) => { limits.reconfigure(c, views); userData.apply(c, views, w.signing); };
      reconfigure(cfg, nextPinned.default.views, nextSecurity.websocket);
      try {
        gateway.swap(nextPinned, programOptions(cfg, next.catalogue, nextSecurity, limits, beforeProxy, next.hash, userData.bridge));
      } catch (e) {
        reconfigure(before, serving.default.views, wsSecurity);
        throw e;
      }
      revocation.applied(nextSecurity.websocket.tokens);
      wsSecurity = nextSecurity.websocket;
      gateway.metrics.limitSeries(cfg.metricsMaxSeries);
      serving = nextPinned;
      reconfigureServer(server, cfg, nextTls, logger);
      websocketsAfterReload(websockets, gateway.state(), cfg.reloadClosesWebsockets, logger);
    },
  });
  // Websocket relays take the configuration a reload last applied (upstreams, strict, deadlines, limits).
  const websockets = lazyWebsockets(gateway, (served) => ({ ...websocketOptions(reloader.config(), served, gateway, limits, logger, opts), security: wsSecurity, crossSite: served.program.crossSite, userData: userData.bridge, userDataSubscriptions }), logger);
  const revocation = tokenRevocation({ tokens: () => wsSecurity.tokens, closeWebsockets: (t) => websockets.revoke(t), bridge: () => userData.bridge, logger });
  acceptUpgrades(server, websockets, logger);
  registerMetrics(gateway, websockets, reloader, limits, builders);
  if (cluster.isWorker) await shareAcrossWorkers(gateway);
  const probes = await listen(server, config, async () => { await gateway.close(); await limits.close(); }, (e) => listenError(e, config), { handler: gateway.handler, logger: setupLog });
  ready = true;
  setupLog.release();
  listening(gateway, pinned, logger, `catalogue ${loaded.fromCache ? 'from cache' : 'parsed'}; code cache ${codeCache()}; ready in ${(performance.now() - started).toFixed(0)} ms`);
  if (config.fleet !== 'off') fleet = joinFleet({ url: config.fleet, replica: `${hostname()}:${process.pid}:${(server.address() as AddressInfo).port}`, hash: () => gateway.state().hash, reload: (t, expect) => reloader.reload(t, expect), logger, metrics: gateway.metrics });
  const watching = config.watch ? watchForReload([config.catalogue, config.configFile, config.tokensFile], (t) => reloader.reload(t), logger) : undefined;
  let closing: Promise<void> | undefined;
  return {
    url: urlOf(server, config), healthUrl: probes?.url,
    server, gateway, websockets, logger,
    views: pinned.default.views, catalogue: loaded.catalogue,
    ready: () => ready,
    close: (graceMs = reloader.config().shutdownGraceMs, acceptGraceMs = reloader.config().acceptGraceMs) =>
      (closing ??= (ready = false, watching?.close(), userData.close(), drain({ server, gateway, websockets, builders, limits, fleet, logger }, graceMs, acceptGraceMs).finally(() => probes?.close()))),
    reload: (trigger = 'reload()') => reloader.reload(trigger),
  };
}

/** Under --workers: a metrics scrape and GET /_gateway/drift, whichever worker takes them, answer for every worker. */
async function shareAcrossWorkers(gateway: Gateway): Promise<void> {
  await aggregateAcrossWorkers(gateway.metrics);
  aggregateDriftAcrossWorkers(gateway.drift);
}

function websocketOptions(cfg: GatewayConfig, served: Served, gateway: Gateway, limits: RateLimiting, logger: Logger, opts: StartOptions): WebsocketOptions {
  return {
    views: served.views, upstreams: cfg.upstreams, strict: cfg.strict, timeoutMs: cfg.timeoutMs, maxPayload: cfg.bodyLimit, logger, metrics: gateway.metrics,
    maxBufferedBytes: cfg.wsMaxBuffered, maxHoldMs: cfg.wsMaxHoldMs, frameLimits: limits, maxListenKeys: cfg.userDataKeysPerToken,
    upstreamRelease: served.program.migrate?.upstreamRelease, drift: gateway.drift, ...opts.websocket,
  };
}

function urlOf(server: Server, config: GatewayConfig): string {
  const { port } = server.address() as AddressInfo;
  return `${'setSecureContext' in server ? 'https' : 'http'}://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
}

/** What the websocket side, reloads, builders and the rate limiter count, read at scrape time. */
function registerMetrics(gateway: Gateway, websockets: Websockets, reloader: Reloader, limits: RateLimiting, builders?: { observe(m: Gateway['metrics']): void }): void {
  websocketMetrics(gateway.metrics, websockets);
  gateway.metrics.addCounter('gateway_reloads_applied_total', 'Reloads of the catalogue and configuration that were applied.', () => reloader.counts.applied);
  gateway.metrics.addCounter('gateway_reloads_refused_total', 'Reloads refused (an invalid catalogue or configuration); the last good program kept serving.', () => reloader.counts.refused);
  builders?.observe(gateway.metrics);
  limits.observe(gateway.metrics); // remaining budget per limit, bans, refusals, the store's state
}

/** Whether `dist/src/cli.cjs` (tools/cli-loader.cjs) ran the bundle with its V8 code cache: used, refused (other flags or node), none. */
const codeCache = (): string => (globalThis as Record<symbol, string | undefined>)[Symbol.for('catalogue-gateway.code-cache')] ?? 'none (not started by dist/src/cli.cjs)';

/** Once listening: warm the proxy, say what is served and how start-up went (`startup`, at debug). */
function listening(gateway: Gateway, pinned: PinnedReleases, logger: Logger, startup: string): void {
  // What the first proxied request would otherwise wait for (undici, ~110 files), loaded just after
  // the socket listens, once the first probes have been answered.
  setTimeout(() => { void gateway.proxy().warm(); }, 100).unref();
  announce(pinned, logger);
  logger.debug(startup);
}

/** One line per service: what it serves. */
function announce(pinned: PinnedReleases, logger: Logger): void {
  const ids = pinned.served.map((r) => r.id).filter(Boolean);
  for (const v of pinned.default.views) {
    const releases = ids.filter((id) => v.service.releases.some((r) => r.id === id)); // each service its own line
    const at = v.release ? (releases.length > 1 ? ` serving ${releases.join(', ')} (default ${v.release.id})` : ` pinned at ${v.release.id}`) : '';
    logger.info(`service ${v.service.id}${at}: ${v.served.length} endpoints`);
  }
}
