// The access line of an upgrade, accepted (101) or not, like any request's: one per upgrade, with
// a bounded route template (never a stream name: a user-data stream's name is its listen key).
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { CLIENT_CLOSED, recordRaw, refusedLabel } from '../observe/access-record.js';
import { assignIdentity, identityOf, type RequestIdentity } from '../observe/request-id.js';
import type { WsContext } from './context.js';
import type { WsPaths, WsRoute } from './routes.js';

/** One upgrade request from arrival to its 101 or refusal: what its access line needs. */
export interface Attempt {
  req: IncomingMessage;
  who: RequestIdentity;
  route?: WsRoute;
  /** Stream routes: the catalogue templates the names matched. */
  templates?: string[];
  release?: string;
  upstreamMs?: number;
  recorded: boolean;
}

/** The start of an upgrade's record; the socket closing before an answer records it as the client's hang-up. */
export function attempt(ctx: WsContext, req: IncomingMessage, socket: Duplex): Attempt {
  const at: Attempt = { req, who: identityOf(req) ?? assignIdentity(req, performance.now()), recorded: false };
  socket.once('close', () => record(ctx, at, CLIENT_CLOSED));
  return at;
}

/** The access line of an upgrade, once: route template, status, release, time to the answer. */
export function record(ctx: WsContext, at: Attempt, status: number, bytes?: number): void {
  if (at.recorded) return;
  at.recorded = true;
  const { route, templates } = at;
  const streams = route?.kind === 'streams' && templates?.length ? [...new Set(templates)].join(',') : undefined;
  recordRaw({ logger: ctx.opts.logger, metrics: ctx.opts.metrics }, at.who, {
    method: at.req.method, route: accessRoute(route, templates, status, ctx.paths), status, release: at.release, arrived: at.who.arrived,
    upstreamMs: at.upstreamMs, bytes, streams,
  });
}

/**
 * The route of an upgrade's access line and histogram: a bounded template, never the client's path
 * (a user-data stream's name is its listen key). One raw stream: its catalogue template under the
 * raw path; several, or a combined stream: the path alone (the access line lists the templates).
 */
function accessRoute(route: WsRoute | undefined, templates: string[] | undefined, status: number, paths: WsPaths): string {
  if (!route) return refusedLabel(status);
  if (route.kind === 'wsApi') return paths.wsApi!;
  if (route.combined) return paths.combined!;
  return templates?.length === 1 ? `${paths.raw}/${templates[0]}` : paths.raw!;
}

/** A route for log lines: no query strings, no stream names (a user-data stream's name is its listen key). */
export function describe(route: WsRoute, paths: WsPaths): string {
  if (route.kind === 'wsApi') return route.path;
  return `${route.combined ? paths.combined : paths.raw} (${route.names.length} stream${route.names.length === 1 ? '' : 's'})`;
}
