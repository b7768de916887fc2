// Refusing an upgrade: an HTTP answer written on the socket in the service's error envelope, with
// X-Request-Id and X-Gateway-Release, and its access line. Anything thrown while admitting or
// dialling ends here: a GatewayError as itself, anything else (a gateway bug) as 500.
import { RELEASE_HEADER_NAME } from '../profile.js';
import type { Duplex } from 'node:stream';
import type { Service } from '../../catalogue/model.js';
import { CLIENT_CLOSED } from '../observe/access-record.js';
import { envelope, GatewayError } from '../errors.js';
import { writeLastAnswer } from '../transport/raw-answer.js';
import type { ServiceWs, WsContext } from './context.js';
import { describe, record, type Attempt } from './upgrade-record.js';

function refuse(ctx: WsContext, at: Attempt, socket: Duplex, status: number, body: Record<string, unknown>, release: string | undefined, own: Record<string, string> = {}): void {
  ctx.counts.refused++;
  at.release = release;
  if (socket.destroyed) return record(ctx, at, CLIENT_CLOSED);
  const headers = ['Content-Type: application/json', `X-Request-Id: ${at.who.id}`, ...(release ? [`${RELEASE_HEADER_NAME}: ${release}`] : []), ...Object.entries(own).map(([k, v]) => `${k}: ${v}`)];
  record(ctx, at, status, writeLastAnswer(socket, status, headers, JSON.stringify(body)));
}

export function refuseError(ctx: WsContext, at: Attempt, socket: Duplex, e: GatewayError, svc: ServiceWs | undefined): void {
  const service: Service | undefined = svc?.view.service ?? ctx.opts.views[0]?.service;
  refuse(ctx, at, socket, e.status, envelope(service, e.reason, e.message), svc?.release ?? ctx.defaultRelease, e.headers); // [wssign] e.headers: WWW-Authenticate on a 401
}

export function refuseThrown(ctx: WsContext, at: Attempt, socket: Duplex, e: unknown): void {
  const { route } = at;
  const { paths } = ctx;
  const { logger } = ctx.opts;
  const svc = route?.kind === 'wsApi' ? ctx.wsApiService : ctx.streamsService ?? ctx.wsApiService;
  const path = (at.req.url ?? '').split(/[?#]/)[0];
  const where = route ? describe(route, paths) : paths.raw && path.startsWith(`${paths.raw}/`) ? `${paths.raw}/…` : path;
  if (e instanceof GatewayError) {
    logger.debug(`ws upgrade ${where} refused: ${e.status}`);
    return refuseError(ctx, at, socket, e, svc);
  }
  logger.error(`ws upgrade ${where} → 500: ${(e as Error)?.stack ?? String(e)}`);
  refuseError(ctx, at, socket, new GatewayError('unknown', 'internal gateway error'), svc);
}
