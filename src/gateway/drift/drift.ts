// Drift from live traffic: what clients and the upstream show that the catalogue does not say.
//   - unknown operations: a request for a METHOD and path of which the catalogue knows no life at
//     any release (the 404/405 of routeRequest), a websocket-API method or a stream name it knows
//     nothing of;
//   - upstream contradictions: for an operation the catalogue holds alive at the release the upstream
//     speaks, the upstream answers with one of the answers service.yaml declares to mean "no such
//     operation" or "no such parameter" (errors.upstreamUnknown).
// GET /_gateway/drift lists both, `npm run catalogue -- drift` turns the list into what to fix.
//
// Bounded whatever clients send: at most DRIFT_MAX_ENTRIES entries per table (a path or name
// clipped to DRIFT_MAX_NAME characters, a query string never kept, parameter names only when the
// catalogue declares them), then only an overflow count; one warn line per new entry and one when a
// table fills. Cost: a refused request adds one map lookup; a proxied one a property read, and an
// upstream 4xx (buffered anyway) a look at its code.
import type { IncomingHttpHeaders } from 'node:http';
import { upstreamIndex } from '../../catalogue/changes/lookup.js';
import { resolveServiceAt, type EndpointAt, type ReleaseView } from '../../catalogue/resolve.js';
import type { Service, UpstreamAnswer } from '../../catalogue/model.js';
import type { Logger } from '../../log.js';
import type { AnswerWatch, UpstreamRequest } from '../../upstream/proxy.js';
import { forEachParam } from '../params/form-params.js';
import type { Migrations } from '../migrate/compile.js';
import type { Metrics } from '../observe/metrics.js';
import type { Route } from '../routes/route-table.js';
import { methodShape, restShape, streamShape } from './key-shape.js';

/** Distinct entries kept per table (unknown operations; contradictions). */
export const DRIFT_MAX_ENTRIES = 256;
/** Characters of a path, method or stream name kept; longer ones are clipped (and end in "…"). */
export const DRIFT_MAX_NAME = 128;
/** Parameter names kept per contradiction. */
const MAX_PARAMETERS = 32;
/** Error bodies larger than this are not parsed for a code (the exchange's are tens of bytes). */
const MAX_ERROR_BODY = 4096;

/** Where an unknown operation was asked for. */
export type Surface = 'rest' | 'ws-api' | 'stream';
/** What the upstream said does not exist. */
export type Says = 'unknown operation' | 'unknown parameter';

interface Counted {
  count: number;
  first: number;
  last: number;
}

interface UnknownEntry extends Counted {
  surface: Surface;
  operation: string;
  service: string | undefined;
}

interface ContradictionEntry extends Counted {
  service: string;
  release: string | null;
  operation: string;
  says: Says;
  status: number;
  code: number | null;
  parameters: Set<string>;
}

/** A table of at most `max` entries; what does not fit is counted, never kept. */
class Capped<E extends Counted> {
  readonly entries = new Map<string, E>();
  total = 0;
  overflow = 0;

  constructor(private readonly max: number) {}

  /** The entry of `key` counted once more; undefined when it is new and there is no room (counted as overflow). */
  count(key: string, now: number, make: () => Omit<E, keyof Counted>, isNew: (e: E) => void, full: () => void): E | undefined {
    this.total++;
    const had = this.entries.get(key);
    if (had) {
      had.count++;
      had.last = now;
      return had;
    }
    if (this.entries.size >= this.max) {
      if (this.overflow++ === 0) full();
      return undefined;
    }
    const e = { ...make(), count: 1, first: now, last: now } as E;
    this.entries.set(key, e);
    isNew(e);
    return e;
  }
}

export interface DriftOptions {
  maxEntries?: number;
  /** The clock (tests). */
  now?: () => number;
}

const iso = (ms: number) => new Date(ms).toISOString();
const clip = (s: string) => (s.length > DRIFT_MAX_NAME ? `${s.slice(0, DRIFT_MAX_NAME)}…` : s);
const byCount = (a: Counted, b: Counted) => b.count - a.count || a.first - b.first;

/** One gateway's drift tables, kept across reloads. */
export class Drift {
  private readonly unknown: Capped<UnknownEntry>;
  private readonly contradictions: Capped<ContradictionEntry>;
  private readonly now: () => number;
  private readonly since: number;
  private readonly maxEntries: number;
  private source?: () => Promise<DriftReport>;
  /** The services' stream paths (/ws, /stream): what follows them is a key position (key-shape.ts). */
  private keyPaths: readonly string[] = [];

  constructor(private readonly logger: Pick<Logger, 'warn'>, o: DriftOptions = {}) {
    this.maxEntries = o.maxEntries ?? DRIFT_MAX_ENTRIES;
    this.unknown = new Capped(this.maxEntries);
    this.contradictions = new Capped(this.maxEntries);
    this.now = o.now ?? Date.now;
    this.since = this.now();
  }

  /** Set with each program: the services' stream paths. */
  keyPositions(paths: readonly string[]): void { this.keyPaths = paths; }

  /** A request for an operation the catalogue has no life of: `name` is the path (no query), the method or the stream name; key positions kept as <…>. */
  unknownOperation(surface: Surface, method: string, name: string, service: string | undefined): void {
    const operation = surface === 'rest' ? `${clip(method)} ${clip(restShape(name, this.keyPaths))}`
      : `${surface} ${clip(surface === 'stream' ? streamShape(name) : methodShape(name))}`;
    this.unknown.count(`${service ?? ''} ${operation}`, this.now(), () => ({ surface, operation, service }),
      () => this.logger.warn(`drift: ${operation} is not in the catalogue${service ? ` (service ${service})` : ''}; GET /_gateway/drift counts such calls`),
      () => this.logger.warn(`drift: ${this.maxEntries} unknown operations listed; further new ones are only counted (overflow)`));
  }

  /** The upstream said an operation the catalogue holds alive at `release`, or one of its parameters, does not exist. */
  contradiction(c: { service: string; release: string | null; operation: string; says: Says; status: number; code: number | null; parameters: readonly string[] }): void {
    const key = `${c.service} ${c.release ?? ''} ${c.operation} ${c.says} ${c.status} ${c.code ?? ''}`;
    const e = this.contradictions.count(key, this.now(), () => ({ ...c, parameters: new Set<string>() }),
      () => this.logger.warn(`drift: the upstream says ${c.operation} ${c.says === 'unknown operation' ? 'does not exist' : 'takes a parameter it was sent not'} (HTTP ${c.status}${c.code === null ? ', no code' : `, code ${c.code}`}), but the catalogue holds it alive at ${c.release ?? 'its only release'}; GET /_gateway/drift counts such answers`),
      () => this.logger.warn(`drift: ${this.maxEntries} upstream contradictions listed; further new ones are only counted (overflow)`));
    if (e) for (const p of c.parameters) if (e.parameters.size < MAX_PARAMETERS) e.parameters.add(p);
  }

  /**
   * What to watch of the upstream's answers to `route`, or undefined when its service declares no
   * errors.upstreamUnknown. Made on the route's first forward and kept on it.
   */
  watchOf(route: Route, p: UpstreamReleases): AnswerWatch | undefined {
    const had = route.watch;
    return had === undefined ? this.makeWatch(route, p) : had ?? undefined;
  }

  private makeWatch(route: Route, p: UpstreamReleases): AnswerWatch | undefined {
    const rules = route.view.service.errors.upstreamUnknown;
    const id = route.view.service.id;
    const watch = rules && (rules.operation.length || rules.parameter.length) ? new RouteWatch(this, route, p.migrate?.upstreamRelease.get(id) ?? p.upstreamRelease[id]) : null;
    route.watch = watch;
    return watch ?? undefined;
  }

  /** The two counters (every observation, listed or not, and the overflowed ones), by kind. */
  observe(metrics: Metrics): void {
    metrics.addCounterFamily('gateway_drift_total', 'Calls to operations the catalogue does not have (unknown_operation) and upstream answers saying an operation or parameter it holds alive does not exist (upstream_contradiction); GET /_gateway/drift lists them.',
      ['kind'], () => [[{ kind: 'unknown_operation' }, this.unknown.total], [{ kind: 'upstream_contradiction' }, this.contradictions.total]]);
    metrics.addCounterFamily('gateway_drift_overflow_total', `Drift observations not listed by GET /_gateway/drift because its table of ${this.maxEntries} entries was full, by kind.`,
      ['kind'], () => [[{ kind: 'unknown_operation' }, this.unknown.overflow], [{ kind: 'upstream_contradiction' }, this.contradictions.overflow]]);
  }

  /** Answer GET /_gateway/drift from another source (under --workers: the primary's merge of every worker's tables). */
  reportFrom(source: () => Promise<DriftReport>): void {
    this.source = source;
  }

  /** GET /_gateway/drift: this process's tables, or the source's report. */
  report(): DriftReport | Promise<DriftReport> {
    return this.source ? this.source() : this.snapshot();
  }

  /** This process's tables: most counted first, times in ISO 8601. */
  snapshot(): DriftReport {
    const times = (e: Counted) => ({ count: e.count, firstSeen: iso(e.first), lastSeen: iso(e.last) });
    return {
      since: iso(this.since),
      bounds: { entries: this.maxEntries, nameLength: DRIFT_MAX_NAME },
      unknownOperations: {
        total: this.unknown.total, overflow: this.unknown.overflow,
        entries: [...this.unknown.entries.values()].sort(byCount).map((e) => ({ surface: e.surface, operation: e.operation, service: e.service ?? null, ...times(e) })),
      },
      contradictions: {
        total: this.contradictions.total, overflow: this.contradictions.overflow,
        entries: [...this.contradictions.entries.values()].sort(byCount).map((e) => ({
          service: e.service, release: e.release, operation: e.operation, says: e.says, status: e.status, code: e.code, parameters: [...e.parameters].sort(), ...times(e),
        })),
      },
    };
  }
}

/** Where the release each upstream speaks is known: the program's migrations, else the setting (service.yaml's, else the newest, when neither names it). */
interface UpstreamReleases {
  migrate: Migrations | null;
  upstreamRelease: Readonly<Record<string, string>>;
}

/** The JSON of GET /_gateway/drift. */
export interface DriftReport {
  /** When counting began (the gateway's start; a reload keeps the tables). */
  since: string;
  bounds: { entries: number; nameLength: number };
  /** Under --workers: the worker processes asked and how many answered (absent: one process's tables). */
  workers?: { answered: number; of: number };
  unknownOperations: { total: number; overflow: number; entries: Array<{ surface: Surface; operation: string; service: string | null; count: number; firstSeen: string; lastSeen: string }> };
  contradictions: {
    total: number; overflow: number;
    entries: Array<{ service: string; release: string | null; operation: string; says: Says; status: number; code: number | null; parameters: string[]; count: number; firstSeen: string; lastSeen: string }>;
  };
}

/** The upstream's code in a code-msg body, or null when it carries none. */
function codeOf(body: Buffer): number | null {
  if (body.length > MAX_ERROR_BODY) return null;
  try {
    const v: unknown = JSON.parse(body.toString('utf8'));
    const code = v && typeof v === 'object' ? (v as { code?: unknown }).code : undefined;
    return typeof code === 'number' ? code : null;
  } catch {
    return null;
  }
}

const matches = (a: UpstreamAnswer, status: number, code: number | null) =>
  (a.status === undefined ? status >= 400 && status < 500 : a.status === status) && (a.code === undefined || (a.code === 'none' ? code === null : a.code === code));

/** Resolved views at the upstream's release, per service (made on the first contradiction). */
const upstreamViews = new WeakMap<Service, Map<number, ReleaseView>>();
function viewAt(service: Service, at: number): ReleaseView {
  let byRelease = upstreamViews.get(service);
  if (!byRelease) upstreamViews.set(service, (byRelease = new Map()));
  let v = byRelease.get(at);
  if (!v) byRelease.set(at, (v = resolveServiceAt(service, at)));
  return v;
}

/** The upstream's answers to one route, as the proxy shows them: the 4xx its service's declared answers can be. */
class RouteWatch implements AnswerWatch {
  private readonly anyClientError: boolean;
  private readonly statuses: ReadonlySet<number>;

  constructor(private readonly drift: Drift, private readonly route: Route, private readonly upstreamRelease: string | undefined) {
    const rules = route.view.service.errors.upstreamUnknown!;
    const all = [...rules.operation, ...rules.parameter];
    this.anyClientError = all.some((a) => a.status === undefined);
    this.statuses = new Set(all.flatMap((a) => (a.status === undefined ? [] : [a.status])));
  }

  wants(status: number): boolean {
    return (this.anyClientError && status >= 400 && status < 500) || this.statuses.has(status);
  }

  seen(status: number, body: Buffer, req: UpstreamRequest): void {
    try {
      this.judge(status, body, req);
    } catch {
      // Counting drift never costs the client its answer (a catalogue fact that cannot be read here is drift's loss only).
    }
  }

  private judge(status: number, body: Buffer, req: UpstreamRequest): void {
    const rules = this.route.view.service.errors.upstreamUnknown!;
    const code = codeOf(body);
    const says: Says | null = rules.operation.some((a) => matches(a, status, code)) ? 'unknown operation'
      : rules.parameter.some((a) => matches(a, status, code)) ? 'unknown parameter' : null;
    if (says === null) return;
    const service = this.route.view.service;
    // The operation as forwarded (a version change may have carried it to another), at the upstream's release.
    const q = req.url.indexOf('?');
    const path = q < 0 ? req.url : req.url.slice(0, q);
    const operation = `${req.method} ${path}`;
    let at = 0;
    let release: string | null = null;
    if (service.versioned) {
      at = upstreamIndex(service, this.upstreamRelease);
      release = service.releases[at].id;
    }
    const alive = viewAt(service, at).served.find((e) => e.endpoint.key === operation);
    if (!alive) return; // the catalogue does not hold it alive there either: no contradiction
    this.drift.contradiction({ service: service.id, release, operation, says, status, code, parameters: says === 'unknown parameter' ? sentParameters(alive, service, req) : [] });
  }
}

/** Names (never values) of the parameters sent that the catalogue declares for the operation, the signing ones left out. */
function sentParameters(at: EndpointAt, service: Service, req: UpstreamRequest): string[] {
  const declared = new Set(at.parameters.map((p) => p.name));
  for (const p of service.signedParameters) declared.delete(p.name);
  const sent = new Set<string>();
  const add = (k: string) => { if (declared.has(k)) sent.add(k); };
  const q = req.url.indexOf('?');
  if (q >= 0) forEachParam(req.url.slice(q + 1), add, undefined);
  if (req.body?.length && isForm(req.headers)) forEachParam(req.body.toString('utf8'), add, undefined);
  return [...sent];
}

const isForm = (h: IncomingHttpHeaders) => /^application\/x-www-form-urlencoded/i.test(h['content-type'] ?? '');
