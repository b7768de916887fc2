// Signing mode turns the gateway into a holder of the account's key: any request that reaches it is
// made with the account's authority. A web page can make a browser send "simple" cross-site
// requests (a form POST, an image GET) to 127.0.0.1 without a preflight, or rebind its own host
// name to 127.0.0.1 (DNS rebinding). So for the services the gateway signs for, a request is refused
// before any signing when
//   - it carries an Origin the operator did not list (`*` does not count: it is for public data),
//   - the browser says it is cross-site (Sec-Fetch-Site: cross-site or same-site) without such an Origin,
//   - its Host is not one of the names the gateway is known by (rebinding).
// Non-browser clients send none of these headers (and the Host they connect to), so they are unaffected.
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import { GatewayError } from '../errors.js';

export interface CrossSiteGuard {
  /** Services whose requests the gateway signs or authenticates with its own credentials. */
  services: ReadonlySet<string>;
  /** Origins explicitly allowed (from --cors-origin); '*' is ignored here. */
  origins: ReadonlySet<string>;
  /** Host names (without port) a request may be addressed to. */
  hosts: ReadonlySet<string>;
}

export function checkCrossSite(g: CrossSiteGuard, service: string, headers: IncomingHttpHeaders): void {
  if (!g.services.has(service)) return;
  const refusal = crossSiteRefusal(g, headers, `this gateway signs requests for ${service}`);
  if (refusal) throw new GatewayError('crossSite', refusal);
}

/**
 * Why a request may have come from a web page that is not the operator's, or undefined. `what` says
 * what is being protected. `sameOrigin` also accepts an Origin that is the gateway's own (its pages);
 * `ipHosts` accepts any IP-literal Host, or none: DNS rebinding needs a name (and a browser always
 * sends one), and a load balancer's or Kubernetes' probe addresses the gateway by its IP.
 */
export function crossSiteRefusal(g: Omit<CrossSiteGuard, 'services'>, headers: IncomingHttpHeaders, what: string, relaxed: { sameOrigin?: boolean; ipHosts?: boolean; anyHost?: boolean } = {}): string | undefined {
  const origin = headers.origin;
  const own = relaxed.sameOrigin && origin !== undefined && headers.host !== undefined && (origin === `http://${headers.host}` || origin === `https://${headers.host}`);
  if (origin !== undefined && !own && !g.origins.has(origin)) {
    return `Cross-site request from origin '${clip(origin)}' refused: ${what}; allow the origin with --cors-origin if it is yours.`;
  }
  const site = headers['sec-fetch-site'];
  if ((site === 'cross-site' || site === 'same-site') && origin === undefined) {
    return `Cross-site request (Sec-Fetch-Site: ${site}) refused: ${what}.`;
  }
  const host = hostName(headers.host);
  if (relaxed.anyHost || (relaxed.ipHosts && headers.host === undefined)) return undefined;
  if (host === undefined || !(g.hosts.has(host) || (relaxed.ipHosts && isIP(host.replace(/^\[|\]$/g, '')) !== 0))) {
    return `Request addressed to host '${clip(headers.host ?? '')}' refused: ${what} and answers only to ${[...g.hosts].join(', ')} (set --allowed-host).`;
  }
  return undefined;
}

/** "Example.com:8080" → "example.com"; "[::1]:80" → "[::1]". */
export function hostName(host: string | undefined): string | undefined {
  if (!host) return undefined;
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end < 0 ? undefined : h.slice(0, end + 1);
  }
  const colon = h.indexOf(':');
  return colon < 0 ? h : h.slice(0, colon);
}

/**
 * Names always allowed: loopback literals and localhost (a rebinding page is never at those origins)
 * and the address the gateway listens on; --allowed-host adds the names it is reached by.
 */
export function defaultHosts(listenHost: string): string[] {
  const names = ['localhost', '127.0.0.1', '[::1]'];
  const h = listenHost.includes(':') && !listenHost.startsWith('[') ? `[${listenHost}]` : listenHost;
  if (!names.includes(h.toLowerCase()) && h !== '0.0.0.0' && h !== '[::]') names.push(h.toLowerCase());
  return names;
}

const clip = (s: string) => (s.length > 80 ? `${s.slice(0, 80)}…` : s);
