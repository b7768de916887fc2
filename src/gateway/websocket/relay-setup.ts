// A client accepted once its upstream is connected: ws answers the 101 on the client's socket
// (with the upstream's subprotocol), then one Relay per connection carries frames both ways,
// checking each client frame, until either side ends.
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type WebSocket from 'ws';
import { Relay } from '../../upstream/ws-relay.js';
import type { Admitted } from './admission.js';
import type { WsContext } from './context.js';
import { record, type Attempt } from './upgrade-record.js';

/** An upgrade whose upstream answered, with what the client sent meanwhile. */
export interface Dialled {
  at: Attempt;
  socket: Duplex;
  head: Buffer;
  early: Buffer[];
  upstream: WebSocket;
  admitted: Admitted;
  /** The route for log lines. */
  label: string;
}

/** Hand the socket to ws for the 101; `upgraded` is called once it is sent. */
export function acceptClient(ctx: WsContext, d: Dialled, upgraded: () => void): void {
  const { at, socket, upstream } = d;
  const { req } = at;
  ctx.pendingUpstream.set(req, upstream);
  // If the handshake is bad after all, ws answers it and the callback never runs: drop the upstream then.
  const onAbort = () => upstream.terminate();
  socket.once('close', onAbort);
  ctx.wss.handleUpgrade(req, socket, d.early.length ? Buffer.concat([d.head, ...d.early]) : d.head, (client) => {
    upgraded();
    socket.off('close', onAbort);
    ctx.pendingUpstream.delete(req);
    ctx.counts.accepted++;
    record(ctx, at, 101, (socket as Socket).bytesWritten);
    relay(ctx, client, d);
  });
}

function relay(ctx: WsContext, client: WebSocket, { upstream, admitted, label }: Dialled): void {
  const { logger } = ctx.opts;
  const { maxBuffered } = ctx;
  const started = Date.now();
  const leave = admitted.opened?.(); // [wssign]
  logger.debug(`ws ${label} open`);
  const r = new Relay(client, upstream, {
    maxBufferedBytes: maxBuffered, maxHoldMs: ctx.opts.maxHoldMs, inspect: admitted.inspect, inspectDown: admitted.inspectDown,
    onSlowClient: () => {
      ctx.counts.slowClients++;
      logger.warn(`ws ${label}: client too slow (more than ${maxBuffered} bytes waiting), closed with 1008`);
    },
    onEnd: (end) => {
      leave?.(); // [wssign]
      ctx.relays.delete(r);
      logger.debug(`ws ${label} closed: client ${end.clientCode}, upstream ${end.upstreamCode}, ${end.framesUp} frames up, ${end.framesDown} down, ${Date.now() - started} ms`);
    },
  });
  ctx.relays.set(r, admitted.subject);
}
