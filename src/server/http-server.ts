// The listening socket's bounds: headers must arrive promptly, a whole request within the deadline
// (the adapter answers 408 then; node's own check is the backstop), idle keep-alive sockets close,
// and connections past the cap are closed at once rather than starving everyone of descriptors.
import { createServer, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { GatewayConfig } from '../config.js';
import type { Gateway } from '../gateway/app.js';
import { noteTlsRequest } from '../gateway/client-auth/certificate.js';
import { handleConnections } from '../gateway/transport/connections.js';
import type { Logger } from '../log.js';
import { listenForProbes, type ProbeListener } from './health-listener.js';
import { refusePlainHttp } from './plain-http-refusal.js';
import { announceTls, swapSecureContext, tlsServerOptions, type TlsContext } from './tls.js';

/** Node's own whole-request timeout: a backstop past the gateway's deadline. */
export const requestTimeoutFor = (cfg: Pick<GatewayConfig, 'timeoutMs' | 'headersTimeoutMs'>) => Math.max(cfg.timeoutMs + 5000, cfg.headersTimeoutMs);

/** With `tls` (readTls), an https server: the same HTTP options and handler, the same Server interface to everything else. */
export function createHttpServer(config: GatewayConfig, gateway: Gateway, logger: Logger, tls?: TlsContext): Server {
  const http = {
    headersTimeout: config.headersTimeoutMs, requestTimeout: requestTimeoutFor(config),
    keepAliveTimeout: config.keepAliveTimeoutMs, connectionsCheckingInterval: 1000,
  };
  const server = tls ? createTlsServer({ ...http, ...tlsServerOptions(tls, config) }, gateway.handler) as unknown as Server : createServer(http, gateway.handler);
  if (tls) {
    refusePlainHttp(server as never, config.headersTimeoutMs);
    // The connection's certificate, for the tokens-file entries that name one (client-auth/certificate.ts).
    if (tls.clientCa) server.prependListener('request', noteTlsRequest);
    server.once('listening', () => announceTls(server, tls, logger));
  }
  handleConnections(server, config, { logger, metrics: gateway.metrics });
  return server;
}

/** A reload's settings of the listening socket: node's deadline backstop, and the TLS files read again (for new connections). */
export function reconfigureServer(server: Server, cfg: GatewayConfig, tls: TlsContext | undefined, logger: Logger): void {
  server.requestTimeout = requestTimeoutFor(cfg);
  if (tls) swapSecureContext(server, tls, logger);
}

/**
 * Listen, and open the probes' listener (--health-port) when configured; or release what start-up
 * opened (so the process can exit on its error) and throw.
 */
export async function listen(server: Server, config: GatewayConfig, release: () => Promise<void>, listenError: (e: unknown) => unknown, probes: { handler: Gateway['handler']; logger: Logger }): Promise<ProbeListener | undefined> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // A backlog past node's 511: a burst of a thousand connects at once is accepted, not reset (the kernel caps it at somaxconn).
      server.listen({ port: config.port, host: config.host, backlog: 4096 }, () => resolve());
    });
  } catch (e) {
    await release();
    throw listenError(e);
  }
  if (config.healthPort === undefined) return undefined;
  try {
    const listener = await listenForProbes(config.host, config.healthPort, probes.handler, config.headersTimeoutMs);
    probes.logger.info(`probes: ${listener.url}/_gateway/health and /_gateway/ready (--health-port; nothing else is served there)`);
    return listener;
  } catch (e) {
    server.close();
    await release();
    throw e;
  }
}
