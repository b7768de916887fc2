// The state a gateway serves — one compiled program per served release — and how a request picks
// its release: the /@<id>/ path prefix, else the X-Gateway-Release header, else the default.
// A reload builds a whole new state and swaps it; a request reads it once and finishes on it.
import type { IncomingMessage } from 'node:http';
import type { ReleaseView } from '../../catalogue/resolve.js';
import { GatewayError } from '../errors.js';
import type { Program } from '../pipeline.js';
import { ownerOf } from '../routes/route-table.js';

/** One served release: its program and the views it was compiled from. */
export interface Served {
  id: string | undefined;
  program: Program;
  views: ReleaseView[];
}

/** Everything a reload replaces at once. */
export interface GatewayState<O = unknown> {
  served: Served[];
  byId: Map<string, Served>;
  default: Served;
  hash: string;
  loadedAt: string;
  /** Program options that a reload may change (hooks: tokens; upstreams; strict; CORS). */
  options: O;
}


/** What the last reload did, for /_gateway/health and the reload answer. */
export interface ReloadOutcome {
  ok: boolean;
  /** What asked for it: SIGHUP, POST /_gateway/reload, a watched file. */
  trigger: string;
  at: string;
  ms: number;
  /** One line: what changed (ok) or why nothing was applied. */
  summary: string;
  /** file:line problems of a refused catalogue or configuration. */
  problems?: string[];
  hash?: string;
}

/** What a request is served by: a release's program, or the refusal of a release not served. */
/** The served release a request gets, or the refusal of one not served (answered with the default's policies). */
export type Selection = { served: Served } | { error: GatewayError; view: ReleaseView | undefined; served: Served };

const PREFIX = /^\/@([^/?#]+)(?=[/?]|$)/;

/**
 * The release a request asks for: the /@<id>/ path prefix (stripped from req.url, so the rest of the
 * pipeline and the upstream see the plain path), else the X-Gateway-Release header, else the default.
 */
export function select(state: GatewayState<unknown>, req: IncomingMessage): Selection {
  let asked: string | undefined;
  const url = req.url ?? '/';
  if (url.charCodeAt(1) === 64 /* @ */ && url.charCodeAt(0) === 47) {
    const m = PREFIX.exec(url);
    if (m) {
      asked = decodeOr(m[1]);
      req.url = url.slice(m[0].length) || '/';
      if (req.url[0] === '?') req.url = `/${req.url}`;
    }
  }
  const header = req.headers['x-gateway-release'];
  if (asked === undefined && typeof header === 'string' && header !== '') asked = header.trim();
  if (asked === undefined) return { served: state.default };
  const served = state.byId.get(asked);
  if (served) return { served };
  const program = state.default.program;
  const path = (req.url ?? '/').split('?')[0];
  const ids = [...state.byId.keys()];
  const error = new GatewayError('invalid', ids.length
    ? `Release '${clip(asked)}' is not served by this gateway; served: ${ids.join(', ')} (default ${state.default.id}). Choose one with the X-Gateway-Release header or a /@<release>/ path prefix.`
    : `Release '${clip(asked)}' is not served: this gateway serves no versioned service.`);
  return { error, view: ownerOf(program.table, path), served: state.default };
}

/** A malformed %-escape ("/@%E0/") is not an error here: the raw text is simply a release not served. */
function decodeOr(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const clip = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}…` : s);
