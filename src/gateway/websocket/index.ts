// Websocket upgrades of the pinned release: route → check stream names / lifecycle (admission.ts)
// → connect the upstream (dial.ts) → accept the client and relay (relay-setup.ts), with every
// client frame checked on the way up. Refusals are HTTP answers in the service's error envelope
// (refusal.ts); every upgrade, accepted (101) or not, gets one access line (upgrade-record.ts).
// After a reload, connections whose subject is gone are named and may be closed (after-reload.ts).
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { GatewayError } from '../errors.js';
import { admit, secure } from './admission.js';
import { closeGone, closeRevoked } from './after-reload.js';
import { wsContext, type WsContext } from './context.js';
import type { WebsocketGateway, WebsocketOptions } from './contract.js';
import { dial } from './dial.js';
import { checkHandshake } from './handshake.js';
import { refuseError, refuseThrown } from './refusal.js';
import { requestTarget, routeOf } from './routes.js';
import { attempt } from './upgrade-record.js';
import { acceptUserData, feedsUserData } from './user-data-streams.js';

export type { AfterReload, WebsocketGateway, WebsocketOptions, WebsocketStats } from './contract.js';
export { DEFAULT_MAX_BUFFERED_BYTES } from './contract.js';
export { StreamMatcher } from './stream-names.js';

export function createWebsocketGateway(opts: WebsocketOptions): WebsocketGateway {
  const ctx = wsContext(opts);
  const graceMs = opts.shutdownGraceMs ?? 1000;
  return {
    upgrade: (req, socket, head) => upgrade(ctx, req, socket, head),
    refuse: (req, socket, e) => {
      const at = attempt(ctx, req, socket);
      try {
        at.route = routeOf(requestTarget(req.url ?? '/'), ctx.paths);
      } catch {
        /* a target that does not route: recorded as refused:<status> */
      }
      refuseError(ctx, at, socket, e, undefined);
    },
    stats: () => ({ open: ctx.relays.size, connecting: ctx.connecting.size, ...ctx.counts }),
    revoke: (tokens) => closeRevoked(ctx.relays, tokens),
    afterReload(next, close) {
      const out = closeGone(ctx.relays, next, close);
      ctx.counts.reloadClosed += out.closed;
      return out;
    },
    async close() {
      ctx.closing = true;
      for (const c of ctx.connecting) {
        c.upstream.terminate();
        c.socket.destroy();
      }
      ctx.connecting.clear();
      await Promise.all([...ctx.relays.keys()].map((r) => r.shutdown(graceMs)));
      ctx.wss.close();
    },
  };
}

/**
 * The 'upgrade' listener: the connection boundary. Nothing a client sends may end the process, so
 * every error is answered here: a GatewayError as itself, a request that ws or URL building reject
 * as 400, anything else (a gateway bug) as 500 with its stack in the log.
 */
function upgrade(ctx: WsContext, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  // A client hanging up is not the gateway's error; 'close' does the clean-up.
  socket.on('error', (e: NodeJS.ErrnoException) => ctx.opts.logger.debug(`ws upgrade: client socket ${e.code ?? e.message}`));
  const at = attempt(ctx, req, socket);
  try {
    if (ctx.closing) throw new GatewayError('upstream', 'Gateway shutting down.');
    const token = ctx.guard?.admitUpgrade(req); // [wssign] 401 / cross-site before routing; strips ?token=
    const target = requestTarget(req.url ?? '/');
    at.route = routeOf(target, ctx.paths);
    const admitted = admit(ctx, at.route, at);
    if (ctx.guard) secure(ctx.guard, admitted, at, token); // [wssign]
    const protocols = checkHandshake(req);
    if (at.route.kind === 'streams' && feedsUserData(ctx, admitted, at)) return void acceptUserData(ctx, at, socket, head, at.route, token).catch((e: unknown) => refuseThrown(ctx, at, socket, e)); // [user data]
    dial(ctx, at, socket, head, at.route, admitted, protocols);
  } catch (e) {
    refuseThrown(ctx, at, socket, e);
  }
}
