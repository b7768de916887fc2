// Compile the program a gateway serves: the route table of the pinned views, the validators'
// ajv instances, the upstream of every service, the hooks, the CORS and cross-site policies.
// Everything that could fail at request time because of the catalogue or the configuration fails
// here, at start-up, instead (a builder the catalogue names but the gateway lacks, a proxied
// service with no upstream is still allowed: it answers 502 naming the missing upstream).
import type { Ajv } from 'ajv';
import type { ReleaseView } from '../../catalogue/resolve.js';
import { processAjv } from '../../catalogue/validators.js';
import type { PluginRegistry } from '../../builders/plugin.js';
import { DEFAULT_REWRITE_LIMIT, upstreamTarget, type UpstreamProxy } from '../../upstream/proxy.js';
import type { Admission } from '../admission/admission.js';
import type { Drift } from '../drift/drift.js';
import { HandOver } from '../stages/hand-over.js';
import type { Hook, Program } from '../pipeline.js';
import { buildRouteTable } from '../routes/route-table.js';
import { compileMigrations } from '../migrate/compile.js';
import type { Signer } from '../../upstream/signing/signers.js';
import type { UserDataBridge } from '../user-data/bridge.js';

export interface ProgramOptions {
  views: ReleaseView[];
  plugins: PluginRegistry;
  /** Upstream REST base URL per service id. */
  upstreams: Record<string, string>;
  hooks: Hook[];
  strict: boolean;
  bodyLimit: number;
  /** Bytes of a migrated answer held to rewrite it (--migrated-answer-limit; default DEFAULT_REWRITE_LIMIT). */
  migratedAnswerLimit?: number;
  /** Origins allowed to read answers ('*' = any, for public answers only). */
  corsOrigins: string[];
  /** Services the gateway signs for (refused to browsers unless their origin is listed). */
  credentialed: Set<string>;
  /** Host names a credentialed request may be addressed to. */
  allowedHosts: string[];
  /** Per-route adaptive limits and queues (one per gateway, kept across reloads). */
  admission: Admission;
  /** What a stopping gateway refuses (one per gateway; default: a program's own, never stopping). */
  handOver?: HandOver;
  proxy: UpstreamProxy;
  /**
   * Build the route table on the first request rather than now (the releases of a multi-release
   * gateway other than the default: most are seldom or never asked for, and each table is a route
   * per endpoint). Nothing in it can fail that was not checked here already.
   */
  lazyTable?: boolean;
  /** The release each service's upstream speaks (--upstream-release); version changes carry older requests up to it. */
  upstreamRelease?: Record<string, string>;
  /** Keys the gateway holds (signing mode), per service: a migrated signed request is signed again with them. */
  signers?: ReadonlyMap<string, Signer>;
  /** The gateway's drift count (one per gateway, kept across reloads; default: none). */
  drift?: Drift;
  /** [user data] The listen-key bridge (one per gateway, kept across reloads). */
  userData?: UserDataBridge;
}

export function compileProgram(o: ProgramOptions): Program {
  checkPlugins(o.views, o.plugins);
  // Drift hides what a client sends under a stream path (/ws/<listen key>): a key position.
  o.drift?.keyPositions(o.views.flatMap((v) => (v.service.streamPaths ? [v.service.streamPaths.raw, v.service.streamPaths.combined] : [])));
  let table = o.lazyTable ? undefined : buildRouteTable(o.views);
  const origins = new Set(o.corsOrigins);
  // The process's ajv (catalogue/validators.ts): identical schemas compile once for every release and reload.
  const ajv = processAjv;
  return {
    get table() { return (table ??= buildRouteTable(o.views)); },
    hooks: o.hooks,
    answered: o.hooks.some((h) => h.answered) ? o.hooks.filter((h) => h.answered) : null,
    cors: { origins, credentialedServices: o.credentialed },
    crossSite: { services: o.credentialed, origins: new Set([...origins].filter((x) => x !== '*')), hosts: new Set(o.allowedHosts.map((h) => h.toLowerCase())) },
    strict: o.strict,
    bodyLimit: o.bodyLimit,
    migratedAnswerLimit: o.migratedAnswerLimit ?? DEFAULT_REWRITE_LIMIT,
    get paramAjv() { return ajv.param; },
    get bodyAjv() { return ajv.body; },
    upstreams: new Map(Object.entries(o.upstreams).map(([k, v]) => [k, upstreamTarget(new URL(v))])),
    plugins: o.plugins,
    proxy: o.proxy,
    admission: o.admission,
    handOver: o.handOver ?? new HandOver(),
    migrate: compileMigrations(o.views, { upstreamRelease: o.upstreamRelease, signers: o.signers }),
    drift: o.drift ?? null,
    upstreamRelease: o.upstreamRelease ?? {},
    userData: o.userData,
  };
}

/** Builders named by the catalogue must exist: a missing one is a start-up error, not a 500 later. */
function checkPlugins(views: ReleaseView[], plugins: PluginRegistry): void {
  const missing = new Set<string>();
  for (const v of views) {
    for (const b of v.service.builders) if (!plugins.has(b.name)) missing.add(`${v.service.id}: builder "${b.name}" (declared in service.yaml)`);
    for (const e of v.served) if (e.endpoint.builder && !plugins.has(e.endpoint.builder)) missing.add(`${e.endpoint.key}: builder "${e.endpoint.builder}"`);
  }
  if (missing.size) throw new Error(`catalogue names builder plugins this gateway does not have: ${[...missing].join('; ')} (available: ${[...plugins.keys()].join(', ')})`);
}
