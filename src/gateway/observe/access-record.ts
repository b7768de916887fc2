// What one answered request leaves behind: an access line (info) and its latency observations.
// Only bounded, secret-free facts are recorded: the route *template* (never the raw path or its
// query), the status, timings, sizes and ids. Requests that matched no catalogue route are named
// by what they were (admin:<path>, preflight, refused:<status>), so a scanner probing random
// paths cannot grow the metrics without bound. Answers written on the raw socket (websocket
// upgrades, requests node's parser refused, connections over the cap) are recorded the same way
// through recordRaw, so every request has its line.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../../log.js';
import { ADMIN_PATHS } from './admin-paths.js';
import type { Metrics } from './metrics.js';
import { identityOf } from './request-id.js';
import type { Exchange } from '../pipeline.js';
import type { RequestIdentity } from './request-id.js';

/** Status recorded when the client left before any answer was sent (nginx's convention). */
export const CLIENT_CLOSED = 499;
/**
 * Status recorded when the gateway closed the connection without answering (nginx's 444): a
 * pipelining flood past the hard limit, a websocket client sending too much before its 101.
 */
export const CONNECTION_CUT = 444;

const SENT = Symbol('gateway.bytesSent');
/** performance.now() when the connection opened or its last answer ended: where a request node's parser refused began. */
const SINCE = Symbol('gateway.since');
/** Set on a connection the gateway cut: its unanswered requests were cut, not abandoned by the client. */
const CUT = Symbol('gateway.cut');
type CountedSocket = Socket & { [SENT]?: number; [SINCE]?: number; [CUT]?: boolean };

/** The gateway is about to cut this connection (a flood): what it leaves unanswered is recorded as 444. */
export function markCut(socket: Socket): void {
  (socket as CountedSocket)[CUT] = true;
}

/** Note when a connection opened (the start of a refusal that comes before any request object). */
export function connectionOpened(socket: Socket): void {
  (socket as CountedSocket)[SINCE] = performance.now();
}

/** When the request now being read on this connection began, at the earliest. */
export function connectionIdleSince(socket: Socket): number | undefined {
  return (socket as CountedSocket)[SINCE];
}

/**
 * Bytes this answer put on the wire (headers included). Answers of one connection are written in
 * order, each only once the previous one finished, so the socket's counter since the previous
 * answer's end is this answer's size — no per-write bookkeeping on the hot path. The counter is a
 * call into the socket's C++ handle (~13 K instructions, ~3 % of a proxied request), so it is read
 * only for an access line. When lines are off the baseline is forgotten; should a logger turn
 * them on later, its first line leaves the size out rather than overstate it.
 */
function bytesOut(socket: Socket | null, ended: number, wanted: boolean): number | undefined {
  if (!socket) return undefined;
  const s = socket as CountedSocket;
  s[SINCE] = ended;
  if (!wanted) {
    s[SENT] = UNKNOWN;
    return undefined;
  }
  const now = s.bytesWritten;
  const before = s[SENT] ?? 0;
  s[SENT] = now;
  return before === UNKNOWN ? undefined : now - before;
}

/** The byte count at the end of the previous answer was not read. */
const UNKNOWN = -1;

/** The bounded route label of a request (see the header comment). */
export function routeLabel(req: IncomingMessage, status: number, ex?: Exchange): string {
  const route = ex?.route;
  if (route) return route.endpoint.endpoint.path;
  if (!ex) {
    const path = (req.url ?? '').split('?')[0];
    return `admin:${ADMIN_PATHS.includes(path) ? path : 'unknown'}`;
  }
  if (req.method === 'OPTIONS' && status === 204) return 'preflight';
  return refusedLabel(status);
}

/** `refused:<status>`, built once per status (a fresh string per request would be hashed per request). */
const REFUSED = new Map<number, string>();
export function refusedLabel(status: number): string {
  let label = REFUSED.get(status);
  if (label === undefined) REFUSED.set(status, (label = `refused:${status}`));
  return label;
}

export interface RecordOptions {
  logger: Logger;
  metrics: Metrics;
}

/** Record a finished (or abandoned) request. `ex` is absent for admin requests. */
export function recordRequest(o: RecordOptions, req: IncomingMessage, res: ServerResponse, arrived: number, ex?: Exchange): void {
  const who = identityOf(req)!; // the adapter identified it on arrival
  const ended = performance.now();
  const status = res.headersSent ? res.statusCode : (req.socket as CountedSocket)[CUT] ? CONNECTION_CUT : CLIENT_CLOSED;
  const route = routeLabel(req, status, ex);
  const release = ex?.view?.release?.id ?? '';
  const method = req.method ?? '';
  o.metrics.observe(method, route, status, release, (ended - arrived) / 1000);
  const upstreamMs = who.upstreamAt === undefined ? undefined : ended - who.upstreamAt;
  if (upstreamMs !== undefined) o.metrics.observeUpstream(route, release, upstreamMs / 1000);
  const logged = o.logger.enabled('info');
  const bytes = bytesOut(req.socket, ended, logged);
  if (!logged) return;
  accessLine(o.logger, who, method, route, status, ended - arrived, release, upstreamMs, bytes, undefined, ex?.migrated);
}

/** A request answered (or dropped) on the raw socket, outside node's ServerResponse. */
export interface RawAnswer {
  /** Absent when node's parser refused the request before its method was known. */
  method?: string;
  route: string;
  status: number;
  release?: string;
  /** performance.now() when the request arrived (for a refused one, when its connection began to send it). */
  arrived?: number;
  upstreamMs?: number;
  bytes?: number;
  /** Websocket stream upgrades: the catalogue templates of the streams asked for (never the names). */
  streams?: string;
}

/** Record an answer written on the raw socket: the same access line and histogram as any request. */
export function recordRaw(o: RecordOptions, who: RequestIdentity, a: RawAnswer): void {
  const ms = a.arrived === undefined ? undefined : performance.now() - a.arrived;
  o.metrics.observe(a.method ?? '', a.route, a.status, a.release ?? '', (ms ?? 0) / 1000);
  if (!o.logger.enabled('info')) return;
  accessLine(o.logger, who, a.method, a.route, a.status, ms, a.release, a.upstreamMs, a.bytes, a.streams);
}

/** A request the adapter never routed (it waited behind pipelined ones and its connection went). */
export function recordUnrouted(o: RecordOptions, req: IncomingMessage, arrived: number, status: number): void {
  recordRaw(o, identityOf(req)!, { method: req.method, route: refusedLabel(status), status, arrived });
}

/**
 * The access line's fields, serialised here rather than by pino: ids are validated to
 * [A-Za-z0-9._:-] and trace ids are hex, so they need no escaping; method, route and release
 * come from small bounded sets, each fragment serialised once (`fragment`); numbers print as
 * numbers. The order is the one the lines always had.
 */
function accessLine(logger: Logger, who: RequestIdentity, method: string | undefined, route: string, status: number, ms: number | undefined,
  release: string | undefined, upstreamMs: number | undefined, bytes: number | undefined, streams?: string, migrated?: string): void {
  let f = `"reqId":"${who.id}","traceId":"${who.traceparent.slice(3, 35)}"`;
  if (method) f += fragment(METHOD, method);
  f += fragment(ROUTE, route);
  f += `,"status":${status}`;
  if (ms !== undefined) f += `,"ms":${round(ms)}`;
  if (release) f += fragment(RELEASE, release);
  if (upstreamMs !== undefined) f += `,"upstreamMs":${round(upstreamMs)}`;
  if (bytes !== undefined) f += `,"bytes":${bytes}`;
  if (streams !== undefined) f += `,"streams":${JSON.stringify(streams)}`;
  if (migrated !== undefined) f += `,"migrated":${JSON.stringify(migrated)}`; // the version changes applied (changes.yaml ids), never parameters
  logger.access(f);
}

/** Serialised `,"key":"value"` fragments by value, one table per key: methods node's parser knows, route labels, release ids. */
const METHOD = { key: 'method', seen: new Map<string, string>() };
const ROUTE = { key: 'route', seen: new Map<string, string>() };
const RELEASE = { key: 'release', seen: new Map<string, string>() };
/** Past this many values a table stops growing (bounded sets; a bound anyway). */
const KEPT = 4096;

function fragment(t: { key: string; seen: Map<string, string> }, value: string): string {
  let f = t.seen.get(value);
  if (f === undefined) {
    f = `,"${t.key}":${JSON.stringify(value)}`;
    if (t.seen.size < KEPT) t.seen.set(value, f);
  }
  return f;
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;
