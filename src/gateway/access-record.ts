// What one answered request leaves behind: an access line (info) and its latency observations.
// Only bounded, secret-free facts are recorded: the route *template* (never the raw path or its
// query), the status, timings, sizes and ids. Requests that matched no catalogue route are named
// by what they were (admin:<path>, preflight, refused:<status>), so a scanner probing random
// paths cannot grow the metrics without bound.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../log.js';
import { ADMIN_PATHS } from './admin.js';
import type { Metrics } from './metrics.js';
import { identityOf } from './request-id.js';
import type { Exchange } from './pipeline.js';

/** Status recorded when the client left before any answer was sent (nginx's convention). */
export const CLIENT_CLOSED = 499;

const SENT = Symbol('gateway.bytesSent');
type CountedSocket = Socket & { [SENT]?: number };

/**
 * Bytes this answer put on the wire (headers included). Answers of one connection are written in
 * order, each only once the previous one finished, so the socket's counter since the previous
 * answer's end is this answer's size — no per-write bookkeeping on the hot path.
 */
function bytesOut(socket: Socket | null): number | undefined {
  if (!socket) return undefined;
  const s = socket as CountedSocket;
  const now = s.bytesWritten;
  const sent = now - (s[SENT] ?? 0);
  s[SENT] = now;
  return sent;
}

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
function refusedLabel(status: number): string {
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
  const status = res.headersSent ? res.statusCode : CLIENT_CLOSED;
  const route = routeLabel(req, status, ex);
  const release = ex?.view?.release?.id ?? '';
  const method = req.method ?? '';
  o.metrics.observe(method, route, status, release, (ended - arrived) / 1000);
  const upstreamMs = who.upstreamAt === undefined ? undefined : ended - who.upstreamAt;
  if (upstreamMs !== undefined) o.metrics.observeUpstream(route, release, upstreamMs / 1000);
  const bytes = bytesOut(req.socket);
  if (!o.logger.enabled('info')) return;
  o.logger.info('access', {
    reqId: who.id, traceId: who.traceparent.slice(3, 35), method, route, status, ms: round(ended - arrived),
    release: release || undefined, upstreamMs: upstreamMs === undefined ? undefined : round(upstreamMs), bytes,
  });
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;
