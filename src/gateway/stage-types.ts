// The shapes every stage shares: the compiled Program, one request's Exchange, and the hooks a
// program runs. Apart from pipeline.ts so that the stages and handlers can name them without
// importing the pipeline that calls them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Ajv } from 'ajv';
import type { ReleaseView } from '../catalogue/resolve.js';
import type { PluginRegistry } from '../builders/plugin.js';
import type { Cancellation, UpstreamProxy, UpstreamTarget } from '../upstream/proxy.js';
import type { Admission } from './admission/admission.js';
import type { HandOver } from './stages/hand-over.js';
import type { CrossSiteGuard } from './stages/cross-site.js';
import type { Drift } from './drift/drift.js';
import type { Migrations } from './migrate/compile.js';
import type { UserDataBridge } from './user-data/bridge.js';
import type { CorsPolicy } from './stages/own-headers.js';
import type { RequestState } from './request-state.js';
import type { Route, RouteTable } from './routes/route-table.js';

export interface Hook {
  /** Runs before validation: authenticate, declare supplied parameters. */
  admit?(state: RequestState): void;
  /** Runs after validation, just before the handler; may refuse (e.g. a rate limit). */
  prepare?(state: RequestState): void | Promise<void>;
  /** Runs when the upstream's answer starts (status and headers as received), e.g. to learn its counters. */
  answered?(state: RequestState, status: number, headers: Readonly<Record<string, string | string[] | undefined>>): void;
}

/** Everything the stages need, compiled once from the catalogue and the configuration. */
export interface Program {
  table: RouteTable;
  hooks: Hook[];
  /** The hooks that watch upstream answers (null when none does: the hot path then adds nothing). */
  answered: Hook[] | null;
  cors: CorsPolicy;
  crossSite: CrossSiteGuard;
  strict: boolean;
  bodyLimit: number;
  /** Bytes of an upstream answer held in memory to carry it back down a version change (then 502). */
  migratedAnswerLimit: number;
  paramAjv: Ajv;
  bodyAjv: Ajv;
  /** Upstream REST base per service id. */
  upstreams: Map<string, UpstreamTarget>;
  plugins: PluginRegistry;
  proxy: UpstreamProxy;
  /** Per-route adaptive limits with a bounded queue: a hung endpoint sheds its own requests, never another's. */
  admission: Admission;
  /** A stopping gateway that still accepts (--accept-grace): one per gateway, like admission. */
  handOver: HandOver;
  /** Version changes (null when no served service has any: the stage is skipped). */
  migrate: Migrations | null;
  /** The gateway's drift count (unknown operations, upstream contradictions); null: none kept. */
  drift: Drift | null;
  /** --upstream-release: the release each service's upstream speaks, where the setting names one. */
  upstreamRelease: Readonly<Record<string, string>>;
  /** [user data] The listen-key bridge (signing mode, an upstream past the listen keys' retirement). */
  userData?: UserDataBridge;
}

/** One request on its way through the pipeline; the adapter renders errors from what it holds. */
export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** The request id (observe/request-id.ts), echoed among the own headers of every answer. */
  id: string;
  /** The service answering (owner of the path when no route matched). */
  view?: ReleaseView;
  route?: Route;
  /** The /@<release> prefix the request came with ('' or undefined: none), for URLs that point back at the gateway. */
  releasePrefix?: string;
  /** The values of the route's path parameters by name (empty for a static path). */
  pathParams?: Readonly<Record<string, string>> | null;
  own: Record<string, string>;
  cancellation: Cancellation;
  /** The request body has been read whole (a deadline before that is the client's fault: 408). */
  bodyRead: boolean;
  /** The version changes applied ("<release> <change id>[, …]"), for the access line. */
  migrated?: string;
}
