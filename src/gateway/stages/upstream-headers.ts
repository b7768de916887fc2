// What the service's profile changes in the headers between the client and its upstream: the
// upstream's own version header, set to the value of the release the upstream speaks (never a
// value it does not), and Link answer headers (pagination) pointed back at the gateway, so a
// client that follows them stays on the gateway and on the release it chose.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Route } from '../routes/route-table.js';

/**
 * The version header value the upstream of `route` is sent, or undefined when its service has none.
 * Worked out on the route's first forward and kept with it (a reload that moves the upstream's
 * release builds new routes).
 */
export function upstreamVersion(route: Route, upstreamRelease: Readonly<Record<string, string>>): [string, string] | undefined {
  const v = route.profile.version;
  if (v === null) return undefined;
  if (route.cache.has('upstreamVersion')) return route.cache.get('upstreamVersion') as [string, string] | undefined;
  const service = route.view.service;
  const release = upstreamRelease[service.id] ?? service.upstreamRelease ?? service.releases.at(-1)?.id;
  const value = release === undefined ? undefined : v.valueFor(release);
  const pair: [string, string] | undefined = value === undefined ? undefined : [v.header, value];
  route.cache.set('upstreamVersion', pair);
  return pair;
}

// A Host header that can stand in a URL as it is (name or address, optional port); anything else leaves Link alone.
const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * A rewriter of the answer's Link header: every URL on one of `upstreamOrigins` is put on the
 * gateway's origin (the request's Host, its scheme), with the /@<release>/ prefix the request had.
 */
export function linkRewriter(req: IncomingMessage, upstreamOrigins: readonly string[], prefix: string): ((out: Record<string, string | string[] | number>) => void) | undefined {
  const host = req.headers.host;
  if (!host || !HOST.test(host)) return undefined;
  const origin = `${(req.socket as TLSSocket).encrypted ? 'https' : 'http'}://${host}${prefix}`;
  return (out) => {
    const link = out.link;
    if (typeof link !== 'string') return;
    let text = link;
    for (const from of upstreamOrigins) text = text.split(`<${from}/`).join(`<${origin}/`);
    out.link = text;
  };
}
