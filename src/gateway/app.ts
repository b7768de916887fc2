// The gateway: one compiled program per served release, held in one state that a reload replaces
// whole. A request picks its release (X-Gateway-Release, or the /@<id>/ path prefix; else the
// default), reads the state once, and finishes on the program it started with even if a reload
// swaps the state meanwhile. Every catalogue route takes the one pipeline; Koa serves only the
// admin pages (admin/admin.ts), loaded on the first one asked for.
import { versionChoices } from './program/state.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PinnedReleases } from '../catalogue/pin.js';
import type { PluginRegistry } from '../builders/plugin.js';
import { UpstreamProxy } from '../upstream/proxy.js';
import type { Logger } from '../log.js';
import type { AdminReload } from './admin/admin-modes.js';
import { adminHandler } from './admin/admin.js';
import type { TokenEntry } from './client-auth/tokens.js';
import { Drift } from './drift/drift.js';
import { createHttpAdapter, type HttpAdapter } from './transport/http-adapter.js';
import { Metrics } from './observe/metrics.js';
import { Admission, type AdmissionSettings } from './admission/admission.js';
import { HandOver } from './stages/hand-over.js';
import { RefusalSummary } from './overload/refusal-summary.js';
import { ownHeaders } from './stages/own-headers.js';
import type { Hook, Program } from './pipeline.js';
import { compileProgram, type ProgramOptions } from './program/program.js';
import { select, type GatewayState as State, type ReloadOutcome, type Served } from './program/state.js';

export type { Hook, RequestState, Hook as ProxyHook, RequestState as ProxyRequestState } from './pipeline.js';
export { select, type ReloadOutcome, type Selection, type Served } from './program/state.js';

/** The state of this gateway: programs per release and the options a reload may change. */
export type GatewayState = State<Omit<GatewayOptions, 'pinned'>>;

export interface GatewayOptions extends Omit<ProgramOptions, 'proxy' | 'views' | 'lazyTable' | 'admission'> {
  /** Per-route admission: the adaptive limit's ceiling, the queue's bounds (a reload may change them). */
  admission: AdmissionSettings;
  pinned: PinnedReleases;
  plugins: PluginRegistry;
  timeoutMs: number;
  /** Requests of one connection in progress at once (pipelining bound). */
  maxPipelined: number;
  /** Connections to each upstream origin. */
  upstreamConnections: number;
  logger: Logger;
  hooks: Hook[];
  /** Catalogue content hash (shown by /_gateway/health). */
  hash: string;
  /** Readiness: false while loading or draining. */
  ready: () => boolean;
  /** Asked for by POST /_gateway/reload; `trigger` says by whom. */
  reload?: (trigger: string) => Promise<ReloadOutcome>;
  /** Client tokens an admin action (POST /_gateway/reload from off the machine) is checked against. */
  adminTokens?: TokenEntry[];
  /** Who may POST /_gateway/reload (--admin-reload). */
  adminReload?: AdminReload;
  lastReload?: () => ReloadOutcome | undefined;
  /** More of /_gateway/health (the fleet's agreement). */
  health?: () => Record<string, unknown>;
}

export interface Gateway {
  metrics: Metrics;
  /** The request listener for node:http. */
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  /** The state serving now. */
  state(): GatewayState;
  /** The default release's program (tests and benches). */
  program: Program;
  adapter: HttpAdapter;
  /** A stopping gateway that still accepts (--accept-grace): the drain switches it on. */
  handOver: HandOver;
  /** Drift from live traffic (GET /_gateway/drift), kept across reloads. */
  drift: Drift;
  /** Compile a new state (throws on any problem, leaving the current one serving) and swap it in. */
  swap(pinned: PinnedReleases, changes: Partial<Omit<GatewayOptions, 'pinned'>>): GatewayState;
  /** The upstream pool serving now (a reload that changes the deadline, the pool size or the upstreams brings a new one). */
  proxy(): UpstreamProxy;
  close(): Promise<void>;
}

export function createGateway(opts: GatewayOptions): Gateway {
  const poolFor = (o: Pick<GatewayOptions, 'timeoutMs' | 'upstreamConnections'>) => new UpstreamProxy({ timeoutMs: o.timeoutMs, connections: o.upstreamConnections });
  let proxy = poolFor(opts);
  const metrics = new Metrics();
  const refusals = new RefusalSummary(opts.logger);
  const admission = new Admission(opts.admission, refusals);
  admission.observe(metrics);
  const handOver = new HandOver();
  const drift = new Drift(opts.logger);
  drift.observe(metrics);
  const compile = (pinned: PinnedReleases, options: Omit<GatewayOptions, 'pinned'>): GatewayState => {
    // Route tables of releases other than the default are built on their first request.
    const served = pinned.served.map((r) => ({
      id: r.id, views: r.views, program: compileProgram({ ...options, views: r.views, proxy, admission, handOver, drift, lazyTable: r !== pinned.default }),
    }));
    admission.configure(options.admission);
    const byId = new Map(served.filter((s) => s.id !== undefined).map((s) => [s.id!, s]));
    metrics.servedReleases(served.flatMap((s) => s.id ?? [])); // the release label's only values
    const def = served[pinned.served.indexOf(pinned.default)];
    return { served, byId, default: def, versions: versionChoices(def.views), hash: options.hash, loadedAt: new Date().toISOString(), options };
  };
  const { pinned, ...initial } = opts;
  let state = compile(pinned, initial);

  const adapter = createHttpAdapter({
    select: (req) => select(state, req),
    admin: adminHandler({
      state: () => state, metrics, drift, ready: opts.ready, reload: opts.reload, lastReload: opts.lastReload, health: opts.health, adminTokens: () => state.options.adminTokens ?? [],
      guard: () => ({ origins: state.default.program.crossSite.origins, hosts: state.default.program.crossSite.hosts, reload: state.options.adminReload ?? 'loopback' }),
      handOver,
    }),
    // Admin answers grant no CORS read to any origin: they are the operator's, not a page's.
    adminHeaders: () => ownHeaders(state.default.program.cors, undefined, state.default.program.table.fallback, undefined),
    // Read per request from the state, so a reload applies them to every request that arrives after it.
    get timeoutMs() { return state.options.timeoutMs; },
    get maxPipelined() { return state.options.maxPipelined; },
    handOver, metrics, logger: opts.logger, refusals,
  });
  return {
    handler: adapter.handler,
    metrics,
    state: () => state,
    get program() { return state.default.program; },
    adapter,
    handOver,
    drift,
    swap(next, changes) {
      const options = { ...state.options, ...changes };
      const old = proxy;
      const newPool = options.timeoutMs !== state.options.timeoutMs || options.upstreamConnections !== state.options.upstreamConnections
        || JSON.stringify(options.upstreams) !== JSON.stringify(state.options.upstreams);
      if (newPool) proxy = poolFor(options);
      try {
        state = compile(next, options);
      } catch (e) {
        if (newPool) { void proxy.close(); proxy = old; }
        throw e;
      }
      // The old pool finishes what is in flight on it (undici's close waits), then lets its sockets go.
      if (newPool) void old.close();
      return state;
    },
    proxy: () => proxy,
    close: () => {
      refusals.flush();
      return proxy.close();
    },
  };
}

