// Client connections: the cap (derived from the descriptor limit unless given), the overload
// manager that watches open connections against it, and the answers written on a socket that has
// no ServerResponse (over the cap; a request node's parser refused). The server calls this once.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { connectionOpened, type RecordOptions } from '../observe/access-record.js';
import { connectionCap, descriptorLimit } from '../overload/descriptors.js';
import { OverloadManager } from '../overload/manager.js';
import { RefusalSummary } from '../overload/refusal-summary.js';
import { refuseOnSocket } from './raw-answer.js';

/** The settings this reads (the gateway's configuration has them all). */
interface Settings {
  /** 0: derived from the descriptor limit. */
  maxConnections: number;
  upstreamConnections: number;
  builderThreads: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
  overloadHighWater: number;
  overloadLowWater: number;
  overloadTimeoutMs: number;
}

/** Count, cap and watch the server's connections; the line naming the cap's figures is written once it listens. */
export function handleConnections(server: Server, config: Settings, recording: RecordOptions): OverloadManager {
  const { cap, why, tooHigh } = connectionCap(descriptorLimit(), config.upstreamConnections, config.builderThreads, config.maxConnections);
  const manager = new OverloadManager(server, {
    cap, highWater: config.overloadHighWater, lowWater: config.overloadLowWater, overloadTimeoutMs: config.overloadTimeoutMs,
    headersTimeoutMs: config.headersTimeoutMs, keepAliveTimeoutMs: config.keepAliveTimeoutMs,
  }, recording.logger);
  manager.observe(recording.metrics);
  // Said once listening: a start-up that fails (a port in use) prints its error alone.
  server.once('listening', () => {
    recording.logger.info(`connections: cap ${cap} (${why}); overloaded from ${manager.high} open (${config.overloadHighWater} %), restored below ${manager.low} (${config.overloadLowWater} %)`);
    if (tooHigh !== undefined) recording.logger.warn(`--max-connections ${cap} is above the ${tooHigh} connections the descriptor limit leaves room for: past that, new connections fail to open (EMFILE) before the cap refuses them`);
  });
  const refusals = new RefusalSummary(recording.logger);
  server.once('close', () => refusals.flush());
  // Not server.maxConnections: on Node 20 a connection it drops stops the server's header and
  // request timeouts for every other connection. Counting here refuses the excess with a 503 instead.
  // A TLS server's connections count once their handshake is done: that socket carries the requests, and takes a 503 in TLS.
  server.on('setSecureContext' in server ? 'secureConnection' : 'connection', (socket: Socket) => {
    connectionOpened(socket);
    if (manager.open >= cap) {
      // nginx's "reusable" connections: room is made by closing one that loses nothing (no complete request head, or idle).
      if (manager.makeRoom()) refusals.count('connection closed to make room', 'new connections', `${manager.open} open of the cap ${cap}: the oldest with no complete request head (else the longest idle) was closed`);
      else {
        refusals.count('503 over the connection cap', 'new connections', `${manager.open} open of ${cap}, each with a request in progress`);
        return void refuseOnSocket(recording, socket, 503, ['Retry-After: 1']);
      }
    }
    manager.opened(socket);
  });
  server.on('upgrade', (_req, socket: Socket) => manager.upgraded(socket));
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    // Malformed HTTP, header timeouts, resets: answer 400/408/431 when the socket can still take it; never crash.
    if (!socket.writable || (err.code === 'ECONNRESET')) return void socket.destroy();
    if ((socket as Socket & { _httpMessage?: { headersSent: boolean } })._httpMessage?.headersSent) return void socket.destroy(); // an answer is under way: no second one
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    refuseOnSocket(recording, socket as Socket, status, [], (err as { rawPacket?: Buffer }).rawPacket);
  });
  return manager;
}
