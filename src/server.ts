// Start a gateway from a configuration: load the catalogue, pin every service to its release,
// build the app and listen. Used by the CLI and, in-process, by tests and benchmarks.
import cluster from 'node:cluster';
import { createServer, type Server } from 'node:http';
import { statSync, watch, type FSWatcher } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { builtinPlugins } from './builders/registry.js';
import type { PluginRegistry } from './builders/plugin.js';
import type { BuilderPool } from './builders/pool/pool.js';
import { UsageError } from './usage-error.js';
import { listenError } from './listen-error.js';
import { loadCatalogue } from './catalogue/load.js';
import { checkInWorker } from './catalogue/load-in-worker.js';
import { pinReleases, pinViews, type PinnedReleases } from './catalogue/pin.js';
import { CatalogueError, formatProblem } from './catalogue/problems.js';
import type { ReleaseView } from './catalogue/resolve.js';
import type { Catalogue } from './catalogue/model.js';
import type { GatewayConfig } from './config.js';
import { createGateway, select, type Gateway, type GatewayState, type Hook, type Served } from './gateway/app.js';
import type { ReloadOutcome } from './gateway/admin.js';
import type { Metrics } from './gateway/metrics.js';
import { connectionOpened } from './gateway/access-record.js';
import { refuseOnSocket } from './gateway/raw-answer.js';
import { assignIdentity } from './gateway/request-id.js';
import { aggregateAcrossWorkers } from './cluster-metrics.js';
import { defaultHosts } from './gateway/cross-site.js';
import type { AfterReload, WebsocketGateway, WebsocketOptions, WebsocketStats } from './gateway/websocket/index.js';
import { createLogger, heldLogger, type Logger } from './log.js';
import { tuneHeapForServing } from './heap-tuning.js';
import { UPSTREAM_KINDS, upstreamBase } from './upstream/upstream-base.js';
import { securityHooks, type SecurityHooks } from './gateway/signing/setup.js';
import { rateLimiting } from './gateway/rate-limit/setup.js';

export { pinViews };

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

/**
 * The builder pool, started on the first build: threads and WASM cost start-up time and memory a
 * gateway that only proxies never needs. The registry's names are known without loading anything.
 */
function lazyBuilderPool(config: GatewayConfig): { plugins: PluginRegistry; observe(metrics: Metrics): void; close(): Promise<void> } {
  let pool: Promise<BuilderPool> | undefined;
  let metrics: Metrics | undefined;
  const get = () => (pool ??= import('./builders/pool/pool.js').then((m) => m.createBuilderPool({
    threads: config.builderThreads, maxQueue: config.builderQueue, deadlineMs: config.builderDeadlineMs,
    priority: config.builderPriority,
  })));
  const run = async (name: string, body: unknown) => {
    const t0 = performance.now();
    let outcome: 'ok' | 'error' = 'error';
    try {
      const out = await (await get()).run(name, body);
      outcome = 'ok';
      return out;
    } finally {
      metrics?.observeBuilder(name, outcome, (performance.now() - t0) / 1000);
    }
  };
  const plugins = new Map([...builtinPlugins.keys()].map((name) => [name, (body: unknown) => run(name, body)]));
  return { plugins, observe: (m) => { metrics = m; }, close: async () => { if (pool) await (await pool).close(); } };
}

/** The websocket side's numbers, read at scrape time. */
function websocketMetrics(metrics: Metrics, websockets: Websockets): void {
  metrics.addGauge('gateway_websocket_open', 'Websocket connections relaying now.', () => websockets.stats().open);
  metrics.addGauge('gateway_websocket_connecting', 'Websocket connections waiting for their upstream to open.', () => websockets.stats().connecting);
  metrics.addCounter('gateway_websocket_accepted_total', 'Websocket upgrades accepted.', () => websockets.stats().accepted);
  metrics.addCounter('gateway_websocket_refused_total', 'Websocket upgrades refused (unknown path, bad stream, over a limit).', () => websockets.stats().refused);
  metrics.addCounter('gateway_websocket_slow_clients_total', 'Websocket clients closed for leaving too many bytes unread.', () => websockets.stats().slowClients);
  metrics.addCounter('gateway_websocket_reload_closed_total', 'Websocket connections closed after a reload took away their stream, websocket API or release (--reload-closes-websockets).', () => websockets.stats().reloadClosed);
}

/** The websocket side of the gateway, across reloads. */
interface Websockets extends Omit<WebsocketGateway, 'afterReload'> {
  /** After a swap: check the open connections of older programs against `state`; close the gone ones if `close`. */
  afterReload(state: GatewayState, close: boolean): AfterReload;
}

/**
 * The websocket side, loaded on the first upgrade (the ws package and the relay cost start-up time
 * a REST-only client never needs). Each served release gets its own websocket gateway, made on the
 * first upgrade that asks for it (the /@<id>/ prefix or X-Gateway-Release, as for HTTP); a reload
 * brings new ones for new upgrades while open connections keep running on theirs. An older one is
 * let go once nothing is open on it (its counts are kept).
 */
function lazyWebsockets(gateway: Gateway, optionsFor: (served: Served) => WebsocketOptions, logger: Logger): Websockets {
  let module: Promise<typeof import('./gateway/websocket/index.js')> | undefined;
  const made = new Map<Served, WebsocketGateway>();
  const retired: WebsocketStats = { open: 0, connecting: 0, accepted: 0, refused: 0, slowClients: 0, reloadClosed: 0 };
  const add = (into: WebsocketStats, from: WebsocketStats) => { for (const k of Object.keys(into) as (keyof WebsocketStats)[]) into[k] += from[k]; };
  /** Drop the websocket gateways of replaced programs that have nothing open any more. */
  const prune = () => {
    const current = gateway.state().served;
    for (const [served, w] of made) {
      const s = w.stats();
      if (current.includes(served) || s.open || s.connecting) continue;
      add(retired, s);
      made.delete(served);
    }
  };
  const forServed = (m: typeof import('./gateway/websocket/index.js'), served: Served) => {
    let w = made.get(served);
    if (!w) made.set(served, (w = m.createWebsocketGateway(optionsFor(served))));
    return w;
  };
  return {
    upgrade(req, socket, head) {
      socket.on('error', () => {}); // a reset while the module loads must not be an unhandled 'error'
      (module ??= import('./gateway/websocket/index.js')).then((m) => {
        const state = gateway.state();
        const chosen = select(state, req);
        // A release not served is refused by the default release's websocket gateway, like any refusal.
        if ('error' in chosen) return forServed(m, chosen.served).refuse(req, socket, chosen.error);
        forServed(m, chosen.served).upgrade(req, socket, head);
      }).catch((e: unknown) => {
        logger.error(`websocket upgrade failed: ${(e as Error)?.stack ?? String(e)}`);
        socket.destroy();
      });
    },
    refuse(req, socket, e) {
      void (module ??= import('./gateway/websocket/index.js')).then((m) => forServed(m, gateway.state().default).refuse(req, socket, e));
    },
    stats: () => {
      const sum = { ...retired };
      for (const w of made.values()) add(sum, w.stats());
      return sum;
    },
    afterReload(state, close) {
      const out = { gone: 0, closed: 0 };
      for (const [served, w] of made) {
        if (state.served.includes(served)) continue;
        const next = served.id === undefined ? state.default : state.byId.get(served.id);
        const r = w.afterReload(next?.views, close);
        out.gone += r.gone;
        out.closed += r.closed;
      }
      prune();
      return out;
    },
    close: async () => { await Promise.all([...made.values()].map((w) => w.close())); },
  };
}

/**
 * --watch: reload when anything under the catalogue folder, the config file or the tokens file
 * changes. Editors write a file in several steps, so changes are gathered for 250 ms first.
 */
function watchForReload(paths: (string | undefined)[], reload: (trigger: string) => Promise<unknown>, logger: Logger): FSWatcher[] {
  let timer: NodeJS.Timeout | undefined;
  const changed = new Set<string>();
  const schedule = (what: string) => {
    changed.add(what);
    clearTimeout(timer);
    timer = setTimeout(() => {
      const names = [...changed].slice(0, 3).join(', ') + (changed.size > 3 ? ', …' : '');
      changed.clear();
      void reload(`--watch: ${names}`);
    }, 250);
    timer.unref();
  };
  const out: FSWatcher[] = [];
  for (const p of paths) {
    if (!p) continue;
    try {
      const recursive = statSync(p).isDirectory();
      const w = watch(p, { recursive, persistent: false }, (_event, file) => schedule(file ? join(p, String(file)) : p));
      w.on('error', (e) => logger.warn(`--watch ${p}: ${e.message}`));
      out.push(w);
    } catch (e) {
      logger.warn(`--watch ${p}: ${(e as Error).message}`);
    }
  }
  return out;
}

/** One line of what a reload changes, per versioned service and served release, from the diff engine. */
async function describeReload(before: Catalogue, after: Catalogue, pinned: PinnedReleases): Promise<string> {
  const { diffCatalogues } = await import('./diff/index.js');
  const parts: string[] = [];
  for (const s of after.services) {
    if (!s.versioned || !before.services.some((b) => b.id === s.id)) {
      if (!before.services.some((b) => b.id === s.id)) parts.push(`${s.id}: new service`);
      continue;
    }
    const releases = pinned.served.map((r) => r.id).filter((id): id is string => id !== undefined && s.releases.some((r) => r.id === id));
    const result = diffCatalogues(before, after, s, 'previous catalogue', { releases });
    const counts = new Map<string, number>();
    for (const c of result.changes) counts.set(c.id, (counts.get(c.id) ?? 0) + 1);
    const what = [...counts].map(([id, n]) => `${n} ${id}`).join(', ');
    parts.push(`${s.id} ${releases.join(',')}: ${what || 'no change'}`);
  }
  return parts.join('; ') || 'no change';
}

/** One line after a reload that took away what open websockets relay: how many were closed, or kept. */
function reportWebsockets(r: AfterReload, close: boolean, logger: Logger): void {
  if (!r.gone) return;
  const what = 'whose stream, websocket API or release is no longer served';
  if (close) logger.info(`reload closed ${r.closed} websocket connection(s) ${what} (1001, --reload-closes-websockets)`);
  else logger.info(`reload kept ${r.gone} open websocket connection(s) ${what}: they run on the previous program until they end (--reload-closes-websockets closes them)`);
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
  tuneHeapForServing();
  const logger = opts.logger ?? createLogger(config.logLevel, undefined, config.logFormat);
  const started = performance.now();
  const loaded = loadCatalogue(config.catalogue);
  let catalogue = loaded.catalogue;
  const pinned = pinReleases(catalogue, config.release);
  // What set-up says is written once listening: a start-up that fails (a port in use) prints its error alone.
  const setupLog = heldLogger(logger);
  // Signing and tokens first: a misconfiguration stops start-up before anything else is set up.
  const initialSecurity = securityHooks(config, pinned.default.views, setupLog);
  // Rate limits live across reloads (their counts must not reset); set up once from the first catalogue.
  const limits = rateLimiting(config, pinned.default.views, setupLog);
  let ready = false;
  const builders = opts.plugins ? undefined : lazyBuilderPool(config);
  /** What a configuration contributes to a program; recomputed on every reload (tokens, upstreams, CORS). */
  const programOptions = (cfg: GatewayConfig, cat: Catalogue, security: SecurityHooks, hash: string) => {
    return {
      upstreams: restUpstreams(cat, cfg.upstreams), strict: cfg.strict, bodyLimit: cfg.bodyLimit,
      hooks: [...security.authenticate, ...(opts.beforeProxy ?? []), ...limits.hooks, ...security.sign],
      corsOrigins: cfg.corsOrigins, credentialed: security.credentialed, allowedHosts: [...defaultHosts(cfg.host), ...(cfg.allowedHosts ?? [])],
      maxInflightPerRoute: cfg.routeConcurrency, hash, adminTokens: security.adminTokens,
      upstreamRelease: cfg.upstreamRelease, signers: security.signers,
    };
  };
  let lastReload: ReloadOutcome | undefined;
  const reloads = { applied: 0, refused: 0 };
  const gateway = createGateway({
    pinned, plugins: opts.plugins ?? builders!.plugins, timeoutMs: config.timeoutMs, logger,
    maxPipelined: config.maxPipelined, upstreamConnections: config.upstreamConnections,
    ...programOptions(config, catalogue, initialSecurity, loaded.hash),
    ready: () => ready, reload, lastReload: () => lastReload,
  });
  const views = pinned.default.views;

  /** Load, check and compile in full; swap only if all of it succeeded; one log line either way. */
  let queue: Promise<unknown> = Promise.resolve();
  function reload(trigger: string): Promise<ReloadOutcome> {
    const run = queue.then(() => reloadNow(trigger)); // one reload at a time, in order
    queue = run.catch(() => {});
    return run;
  }
  async function reloadNow(trigger: string): Promise<ReloadOutcome> {
    const t0 = performance.now();
    const at = new Date().toISOString();
    try {
      const cfg = opts.reread?.() ?? config;
      await checkInWorker(cfg.catalogue); // the slow part (YAML, schemas) off the request loop
      const next = loadCatalogue(cfg.catalogue);
      const nextPinned = pinReleases(next.catalogue, cfg.release);
      const options = programOptions(cfg, next.catalogue, securityHooks(cfg, nextPinned.default.views, createLogger('silent')), next.hash);
      const summary = await describeReload(catalogue, next.catalogue, nextPinned);
      gateway.swap(nextPinned, options);
      catalogue = next.catalogue;
      lastReload = { ok: true, trigger, at, ms: Math.round(performance.now() - t0), summary, hash: next.hash };
      logger.info(`reloaded (${trigger}) in ${lastReload.ms} ms: ${summary}`);
      websocketsAfterReload(cfg.reloadClosesWebsockets);
    } catch (e) {
      const problems = e instanceof CatalogueError ? e.problems.map(formatProblem) : [(e as Error).message];
      lastReload = { ok: false, trigger, at, ms: Math.round(performance.now() - t0), summary: `refused; still serving catalogue ${gateway.state().hash}`, problems };
      logger.warn(`reload (${trigger}) refused, still serving catalogue ${gateway.state().hash}:\n${problems.join('\n')}`);
    }
    reloads[lastReload.ok ? 'applied' : 'refused']++;
    opts.onReload?.(lastReload);
    return lastReload;
  }
  /** Open websockets against the program just swapped in; a fault here must not undo the reload's report. */
  function websocketsAfterReload(close: boolean): void {
    try {
      reportWebsockets(websockets.afterReload(gateway.state(), close), close, logger);
    } catch (e) {
      logger.error(`websockets after reload: ${(e as Error)?.stack ?? String(e)}`);
    }
  }
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
  const websockets = lazyWebsockets(gateway, (served) => ({
    views: served.views, upstreams: config.upstreams, strict: config.strict, timeoutMs: config.timeoutMs, maxPayload: config.bodyLimit, logger, metrics: gateway.metrics,
    maxBufferedBytes: config.wsMaxBuffered, maxHoldMs: config.wsMaxHoldMs, ...opts.websocket,
  }), logger);
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
  gateway.metrics.addCounter('gateway_reloads_applied_total', 'Reloads of the catalogue and configuration that were applied.', () => reloads.applied);
  gateway.metrics.addCounter('gateway_reloads_refused_total', 'Reloads refused (an invalid catalogue or configuration); the last good program kept serving.', () => reloads.refused);
  builders?.observe(gateway.metrics);
  if (cluster.isWorker) await aggregateAcrossWorkers(gateway.metrics);
  for (const [name, value] of Object.entries(limits.limiterGauges())) {
    // Remaining budget per limit, bans and refusals of the rate limiter, read at scrape time.
    const read = () => limits.limiterGauges()[name] ?? value;
    if (name.endsWith('_total')) gateway.metrics.addCounter(`gateway_${name}`, 'Requests the rate limiter refused locally (429), never forwarded.', read);
    else gateway.metrics.addGauge(`gateway_${name}`, name.endsWith('_ban_seconds') ? 'Seconds left of an upstream ban (418/429 Retry-After) during which requests are refused locally.' : 'Weight or orders left in the current window of this limit.', read);
  }
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
  setTimeout(() => { void gateway.program.proxy.warm(); }, 100).unref();
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const releases = pinned.served.map((r) => r.id).filter(Boolean);
  for (const v of views) {
    const at = v.release ? (releases.length > 1 ? ` serving ${releases.join(', ')} (default ${v.release.id})` : ` pinned at ${v.release.id}`) : '';
    logger.info(`service ${v.service.id}${at}: ${v.served.length} endpoints`);
  }
  logger.debug(`catalogue ${loaded.fromCache ? 'from cache' : 'parsed'}; ready in ${(performance.now() - started).toFixed(0)} ms`);
  const watchers = config.watch ? watchForReload([config.catalogue, config.configFile, config.tokensFile], reload, logger) : [];
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    server,
    gateway,
    websockets,
    views,
    ready: () => ready,
    close: (graceMs = config.shutdownGraceMs) => (closing ??= drain(graceMs)),
    reload: (trigger = 'reload()') => reload(trigger),
  };

  /** Stop accepting, wait for in-flight requests (bounded by the grace), then close everything. */
  async function drain(graceMs: number): Promise<void> {
    ready = false;
    for (const w of watchers) w.close();
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
