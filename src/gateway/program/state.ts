// The state a gateway serves — one compiled program per served release — and how a request picks
// its release: the /@<id>/ path prefix, else the X-Gateway-Release header, else the default.
// A reload builds a whole new state and swaps it; a request reads it once and finishes on it.
import type { IncomingMessage } from 'node:http';
import type { ReleaseView } from '../../catalogue/resolve.js';
import { GatewayError } from '../errors.js';
import type { Program } from '../pipeline.js';
import { ownerOf } from '../routes/route-table.js';
import { profileOf, RELEASE_HEADER, RELEASE_HEADER_NAME, type VersionChoice } from '../profile.js';
import type { Service } from '../../catalogue/model.js';

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
  /** The services whose upstream has a version header of its own (null: none, the common case). */
  versions: VersionRule[] | null;
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

/** The served release a request gets, or the refusal of one not served (answered with the default's policies). */
export type Selection = { served: Served; prefix?: string } | { error: GatewayError; view: ReleaseView | undefined; served: Served };

/** A service whose clients may choose its release with the upstream's own version header. */
export interface VersionRule {
  service: Service;
  choice: VersionChoice;
}

/** The version rules of the services in `views` (null when none has a version header). */
export function versionChoices(views: readonly ReleaseView[]): VersionRule[] | null {
  const rules = views.flatMap((v) => {
    const choice = profileOf(v.service).version;
    return choice && v.service.versioned ? [{ service: v.service, choice }] : [];
  });
  return rules.length ? rules : null;
}

const PREFIX = /^\/@([^/?#]+)(?=[/?]|$)/;

/**
 * The release a request asks for: the /@<id>/ path prefix (stripped from req.url, so the rest of the
 * pipeline and the upstream see the plain path), else the X-Gateway-Release header, else the
 * upstream's own version header of the service owning the path, else the default. A release is
 * chosen within the service that owns the path: one service's release id never pins another's requests.
 */
export function select(state: GatewayState<unknown>, req: IncomingMessage): Selection {
  let asked: string | undefined;
  let prefix: string | undefined;
  const url = req.url ?? '/';
  if (url.charCodeAt(1) === 64 /* @ */ && url.charCodeAt(0) === 47) {
    const m = PREFIX.exec(url);
    if (m) {
      asked = decodeOr(m[1]);
      prefix = m[0];
      req.url = url.slice(m[0].length) || '/';
      if (req.url[0] === '?') req.url = `/${req.url}`;
    }
  }
  const header = req.headers[RELEASE_HEADER];
  if (asked === undefined && typeof header === 'string' && header !== '') asked = header.trim();
  if (asked === undefined) return state.versions === null ? { served: state.default } : byVersionHeader(state, req, state.versions);
  const served = state.byId.get(asked);
  const path = (req.url ?? '/').split('?')[0];
  const owner = ownerOf(state.default.program.table, path);
  if (served && (!owner?.service.versioned || owner.service.releases.some((r) => r.id === asked))) return { served, prefix };
  const line = owner?.service.versioned ? servedOf(state, owner.service) : [...state.byId.keys()];
  const of = owner?.service.versioned ? ` for ${owner.service.id}` : '';
  const choose = `Choose one with the ${RELEASE_HEADER_NAME} header or a /@<release>/ path prefix.`;
  const error = new GatewayError('invalid', served
    ? `Release '${clip(asked)}' is not a release of ${owner!.service.id}, which owns ${clip(path)}; its served releases: ${line.join(', ')}. ${choose}`
    : line.length
      ? `Release '${clip(asked)}' is not served by this gateway; served: ${line.join(', ')} (default ${defaultOf(state, line)})${of}. ${choose}`
      : `Release '${clip(asked)}' is not served: this gateway serves no versioned service.`);
  return { error, view: owner, served: state.default };
}

/** The release chosen by the owning service's version header, its release when the header is absent, or the default. */
function byVersionHeader(state: GatewayState<unknown>, req: IncomingMessage, rules: readonly VersionRule[]): Selection {
  const path = (req.url ?? '/').split('?')[0];
  const owner = ownerOf(state.default.program.table, path);
  const rule = owner && rules.find((r) => r.service === owner.service);
  if (!rule) return { served: state.default };
  const sent = req.headers[rule.choice.header];
  const value = typeof sent === 'string' ? sent.trim() : undefined;
  const release = value === undefined || value === '' ? rule.choice.absent : rule.choice.values.get(value);
  if (release === undefined && value) {
    const error = new GatewayError('invalid', `${rule.service.versionHeader!.name} '${clip(value)}' is not a supported version; supported: ${[...rule.choice.values.keys()].join(', ')}.`);
    return { error, view: owner, served: state.default };
  }
  const served = release === undefined ? undefined : state.byId.get(release);
  if (served) return { served };
  if (!value) return { served: state.default }; // the release of an absent header is not served: the default
  const error = new GatewayError('invalid', `${rule.service.versionHeader!.name} '${clip(value)}' names release ${release}, which this gateway does not serve; served releases of ${rule.service.id}: ${servedOf(state, rule.service).join(', ')}.`);
  return { error, view: owner, served: state.default };
}

/** The served release ids of one service. */
function servedOf(state: GatewayState<unknown>, service: Service): string[] {
  return [...state.byId.keys()].filter((id) => service.releases.some((r) => r.id === id));
}

/** The release a request of a service with these served releases gets without a choice. */
function defaultOf(state: GatewayState<unknown>, line: readonly string[]): string | undefined {
  return state.default.id !== undefined && line.includes(state.default.id) ? state.default.id : line.at(-1);
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
