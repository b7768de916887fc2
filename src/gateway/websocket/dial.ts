// The upstream is connected *before* the client is accepted, so an unreachable upstream is an
// honest HTTP 502 rather than an accepted socket that closes at once. Meanwhile the client is read
// (bounded) so that its hang-up is seen and the upstream dropped.
import type { Duplex } from 'node:stream';
import { connectUpstream, UpstreamConnectError } from '../../upstream/ws-connect.js';
import { CONNECTION_CUT } from '../observe/access-record.js';
import { GatewayError } from '../errors.js';
import type { Admitted } from './admission.js';
import type { WsContext } from './context.js';
import { acceptClient } from './relay-setup.js';
import { refuseError, refuseThrown } from './refusal.js';
import { upstreamUrl, type WsRoute } from './routes.js';
import { describe, record, type Attempt } from './upgrade-record.js';

/** Bytes a client may send before its 101 (it should send none) while the upstream connects. */
const EARLY_DATA_LIMIT = 64 * 1024;

/** Connect the upstream, then accept the client and relay. */
export function dial(ctx: WsContext, at: Attempt, socket: Duplex, head: Buffer, route: WsRoute, admitted: Admitted, protocols: string[]): void {
  const { req, who } = at;
  const { svc, base } = admitted;
  const { logger } = ctx.opts;
  const label = describe(route, ctx.paths);
  let conn: ReturnType<typeof connectUpstream>;
  const dialled = performance.now();
  try {
    const headers = { 'x-request-id': who.id, traceparent: who.traceparent };
    conn = connectUpstream(upstreamUrl(route, base, ctx.paths), { timeoutMs: ctx.opts.timeoutMs, protocols, headers });
  } catch (e) {
    // ws checks the URL and subprotocols synchronously; both come from the client's request.
    throw new GatewayError('invalid', `Invalid websocket request: ${(e as Error).message}.`);
  }
  ctx.releaseOf.set(req, svc.release);
  at.release = svc.release;
  const { socket: upstream, opened } = conn;
  const entry = { socket, upstream };
  ctx.connecting.add(entry);
  // The client gave up while the upstream was connecting: drop the upstream.
  let clientGone = false, upgraded = false;
  const onGone = () => { clientGone = true; upstream.terminate(); };
  socket.once('close', onGone);
  const early = holdEarlyData(socket, () => {
    record(ctx, at, CONNECTION_CUT);
    socket.destroy();
  });
  const accept = () => {
    at.upstreamMs = performance.now() - dialled;
    ctx.connecting.delete(entry);
    socket.off('close', onGone);
    early.stop(); // acceptClient adds ws's own 'data' listener in this same tick: no chunk falls between
    if (socket.destroyed || ctx.closing) {
      upstream.terminate();
      if (ctx.closing) {
        record(ctx, at, CONNECTION_CUT);
        socket.destroy();
      }
      return;
    }
    acceptClient(ctx, { at, socket, head, early: early.chunks, upstream, admitted, label }, () => { upgraded = true; });
  };
  const refused = (e: UpstreamConnectError) => {
    ctx.connecting.delete(entry);
    socket.off('close', onGone);
    if (clientGone) {
      ctx.counts.refused++;
      return logger.debug(`ws ${label}: client hung up before the upstream answered`);
    }
    const status = e.status !== undefined && e.status >= 400 && e.status < 500 ? e.status : 502;
    logger.warn(`ws ${label} → ${status}: ${e.message}`);
    refuseError(ctx, at, socket, new GatewayError('upstream', `Upstream websocket refused or unreachable: ${e.message}.`, {}, status), svc);
  };
  // Same boundary as upgrade(): an error in accepting or relaying must not become an unhandled rejection.
  opened.then(accept, refused).catch((e: unknown) => {
    upstream.terminate();
    if (!upgraded) return refuseThrown(ctx, at, socket, e);
    socket.destroy(); // the 101 is sent: no HTTP answer can follow it
    logger.error(`ws ${label}: ${(e as Error)?.stack ?? String(e)}`);
  });
}

/**
 * Read the client while its upstream connects: a socket nobody reads never reports that its peer
 * has gone. It should send nothing before the 101 (RFC 6455 §4.1); what an eager client sends is
 * kept for ws, up to EARLY_DATA_LIMIT (past it, `overflow`).
 */
function holdEarlyData(socket: Duplex, overflow: () => void): { chunks: Buffer[]; stop(): void } {
  const chunks: Buffer[] = [];
  let bytes = 0;
  const onData = (d: Buffer) => {
    bytes += d.length;
    if (bytes > EARLY_DATA_LIMIT) overflow();
    else chunks.push(d);
  };
  const onEnd = () => socket.destroy(); // no websocket client half-closes before its handshake
  socket.on('data', onData);
  socket.once('end', onEnd);
  return {
    chunks,
    stop: () => {
      socket.off('data', onData);
      socket.off('end', onEnd);
    },
  };
}
