// Why the gateway could not listen, as a usage error naming the setting the way it was given
// (--host, GATEWAY_HOST or the config file's key; likewise for the port): a host this machine has
// no address for, a name that does not resolve, a port in use or reserved. These are mistakes in
// how it was started, so the CLI prints one line and exits 2, with no stack.
import type { GatewayConfig } from './config.js';
import { UsageError } from './usage-error.js';

/** The UsageError for a listen failure `e`, or `e` itself when it is not about the address or port. */
export function listenError(e: unknown, config: Pick<GatewayConfig, 'host' | 'port' | 'given'>): unknown {
  const code = (e as NodeJS.ErrnoException)?.code;
  const host = `${config.given?.host ?? '--host'} "${config.host}"`;
  const port = `${config.given?.port ?? '--port'} ${config.port}`;
  switch (code) {
    case 'EADDRINUSE':
      return new UsageError(`${port} is already in use on ${config.host} (EADDRINUSE); choose another port, or 0 for any free one`);
    case 'EACCES':
      return new UsageError(`${port}: permission denied on ${config.host} (EACCES); ports below 1024 need privileges, choose a higher one`);
    case 'EADDRNOTAVAIL':
      return new UsageError(`${host} is not an address of this machine (EADDRNOTAVAIL); use 127.0.0.1, 0.0.0.0 (every interface) or one of its addresses`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NONAME':
      return new UsageError(`${host} cannot be resolved (${code}); use an IP address or a host name this machine resolves`);
    case 'EAFNOSUPPORT':
      return new UsageError(`${host}: address family not supported on this machine (EAFNOSUPPORT)`);
    default:
      return e;
  }
}
