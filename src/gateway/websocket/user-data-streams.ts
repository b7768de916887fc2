// [user data] Listen-key streams at a release where listen keys were alive, once the upstream has
// retired them: the gateway accepts the client itself (no upstream stream is dialled) and its
// listen-key bridge feeds it (gateway/user-data/bridge.ts). Only listen keys the client's token holds
// are fed: a made-up or another token's key is refused before anything is opened, and costs the
// upstream nothing. A listen-key stream runs on a connection of its own (no market stream beside it).
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { TokenEntry } from '../client-auth/tokens.js';
import { GatewayError } from '../errors.js';
import type { Admitted } from './admission.js';
import type { WsContext } from './context.js';
import type { WsRoute } from './routes.js';
import { record, type Attempt } from './upgrade-record.js';

/** Whether an admitted stream upgrade carries a stream template the bridge feeds. */
export function feedsUserData(ctx: WsContext, admitted: Admitted, at: Attempt): boolean {
  const bridged = admitted.svc.migrations?.bridged.streams;
  return bridged !== undefined && bridged.size > 0 && (at.templates ?? []).some((t) => bridged.has(t));
}

/** Accept the client and feed it from the bridge; a refusal is thrown or rejected as a GatewayError (answered by the caller). */
export async function acceptUserData(ctx: WsContext, at: Attempt, socket: Duplex, head: Buffer, route: Extract<WsRoute, { kind: 'streams' }>, token: TokenEntry | undefined): Promise<void> {
  const bridge = ctx.opts.userData;
  const svc = ctx.streamsService!;
  const bridged = svc.migrations!.bridged.streams;
  if (!bridge) throw new GatewayError('gone', 'Listen-key streams are no longer served by the upstream, and this gateway has no user-data bridge for them (it needs signing mode and the websocket API upstream).');
  if (!(at.templates ?? []).every((t) => bridged.has(t))) {
    throw new GatewayError('invalid', 'A listen-key stream is fed by the gateway itself: open it on a connection of its own, without market streams beside it.');
  }
  const owner = token?.name ?? '';
  const accounts = await bridge.admit(owner, route.names); // its keys, within its token's bound of streams (counted from here)
  ctx.releaseOf.set(at.req, svc.release);
  at.release = svc.release;
  let fed = false;
  // A client that left while it was admitted is never fed: its stream is given back.
  socket.once('close', () => { if (!fed) bridge.abandon(owner); });
  if (socket.destroyed) return;
  ctx.wss.handleUpgrade(at.req, socket, head, (client) => {
    fed = true;
    ctx.counts.accepted++;
    record(ctx, at, 101, (socket as Socket).bytesWritten);
    bridge.feed(client, route.names, accounts, route.combined, owner);
  });
}
