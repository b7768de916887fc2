// The listening socket's bounds: headers must arrive promptly, a whole request within the deadline
// (the adapter answers 408 then; node's own check is the backstop), idle keep-alive sockets close,
// and connections past the cap are closed at once rather than starving everyone of descriptors.
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { GatewayConfig } from '../config.js';
import type { Gateway } from '../gateway/app.js';
import { connectionOpened } from '../gateway/access-record.js';
import { refuseOnSocket } from '../gateway/raw-answer.js';
import type { Logger } from '../log.js';

/** Node's own whole-request timeout: a backstop past the gateway's deadline. */
export const requestTimeoutFor = (cfg: Pick<GatewayConfig, 'timeoutMs' | 'headersTimeoutMs'>) => Math.max(cfg.timeoutMs + 5000, cfg.headersTimeoutMs);

export function createHttpServer(config: GatewayConfig, gateway: Gateway, logger: Logger): Server {
  const server = createServer({
    headersTimeout: config.headersTimeoutMs, requestTimeout: requestTimeoutFor(config),
    keepAliveTimeout: config.keepAliveTimeoutMs, connectionsCheckingInterval: 1000,
  }, gateway.handler);
  // Not server.maxConnections: on Node 20 a connection it drops stops the server's header and
  // request timeouts for every other connection. Counting here refuses the excess with a 503 instead.
  let open = 0;
  const recording = { logger, metrics: gateway.metrics };
  server.on('connection', (socket) => {
    connectionOpened(socket);
    if (open >= config.maxConnections) return void refuseOnSocket(recording, socket, 503, ['Retry-After: 1']);
    open++;
    socket.once('close', () => open--);
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    // Malformed HTTP, header timeouts, resets: answer 400/408/431 when the socket can still take it; never crash.
    if (!socket.writable || (err.code === 'ECONNRESET')) return void socket.destroy();
    if ((socket as Socket & { _httpMessage?: { headersSent: boolean } })._httpMessage?.headersSent) return void socket.destroy(); // an answer is under way: no second one
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    refuseOnSocket(recording, socket as Socket, status, [], (err as { rawPacket?: Buffer }).rawPacket);
  });
  return server;
}

/** Listen, or release what start-up opened (so the process can exit on its error) and throw. */
export async function listen(server: Server, config: GatewayConfig, release: () => Promise<void>, listenError: (e: unknown) => unknown): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (e) {
    await release();
    throw listenError(e);
  }
}
