// The request as the stages see it on its way to the handler: what hooks may change, and what the
// migrate stage replaces when a version change carries it to another operation.
import type { IncomingHttpHeaders } from 'node:http';
import type { PlanBridge } from '../catalogue/changes/plan.js';
import type { TokenEntry } from './client-auth/tokens.js';
import type { Route } from './routes/route-table.js';

/** What hooks see and may change: the request as it will be forwarded. */
export interface RequestState {
  route: Route;
  /** Raw path + query to forward; a prepare hook may replace it (e.g. to append a signature). */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Parameters the hooks will supply, so validation does not ask the client for them (shared: a hook replaces it, never adds to it). */
  supplied: ReadonlySet<string>;
  /** Request headers never to forward: the gateway's own Authorization (client tokens) and release header. */
  drop: ReadonlySet<string>;
  /** Request headers the gateway sets upstream (a credential it holds for the service), over the client's. */
  set?: Record<string, string>;
  /** Headers the gateway adds to the answer (a hook may add its own, e.g. remaining quota). */
  own: Record<string, string>;
  /** The parameters as checked (query and form, coerced to their schema types), for hooks that depend on them (e.g. a request's weight). */
  params: Readonly<Record<string, unknown>>;
  /** Set by the migrate stage when the upstream's operation has another method. */
  method?: string;
  /** Set by the migrate stage: how the answer comes back down to the client's release (its status and body; a null body: none). */
  answer?: (status: number, body: Buffer) => { status: number; body: Buffer | null };
  /** Set by the client-auth hook: the client's token entry. */
  token?: TokenEntry;
  /** Set by the migrate stage: the gateway answers the request itself through this bridge (nothing is forwarded). */
  bridged?: PlanBridge;
}
