// HTTP answers that follow from the catalogue's lifecycle at the pinned release:
// 404 (unknown, or added after the pin), 410 (removed), 405 (path alive, method not),
// and the Deprecation / Link / Sunset headers of a deprecated endpoint that is still served.
import { lifecycleFacts } from '../catalogue/lifecycle.js';
import type { Release } from '../catalogue/model.js';
import type { EndpointAt, ReleaseView } from '../catalogue/resolve.js';
import { GatewayError } from './errors.js';
import type { Route, RouteTable } from './route-table.js';

/** The error for a request whose method+path is not served at the pin. */
export function notServed(table: RouteTable, method: string, path: string): { error: GatewayError; route?: Route } {
  const known = table.known.get(path) ?? [];
  const sameMethod = known.filter((r) => r.endpoint.endpoint.method === method);
  if (sameMethod.length) {
    // Of several lives of one endpoint, answer with the one nearest the pin.
    const removed = sameMethod.filter((r) => r.endpoint.status === 'removed').at(-1);
    const route = removed ?? sameMethod[0];
    const ep = route.endpoint.endpoint;
    const facts = lifecycleFacts(ep, route.view.service.releases, route.view.at);
    if (route.endpoint.status === 'removed') return { route, error: new GatewayError(410, 'notFound', `${ep.key} was ${facts}`) };
    return { route, error: new GatewayError(404, 'notFound', `${ep.key} was ${facts}`) };
  }
  const allow = known.filter((r) => r.endpoint.status === 'alive' || r.endpoint.status === 'deprecated').map((r) => r.endpoint.endpoint.method);
  if (allow.length) {
    const route = known[0];
    const rel = route.view.release ? ` at ${route.view.release.id}` : '';
    return {
      route,
      error: new GatewayError(405, 'notFound', `method ${method} is not allowed for ${path}${rel}; allowed: ${allow.join(', ')}`, { Allow: allow.join(', ') }),
    };
  }
  if (known.length) {
    const route = known[0];
    const methods = known.map((r) => `${r.endpoint.endpoint.key} (${lifecycleFacts(r.endpoint.endpoint, r.view.service.releases, r.view.at)})`);
    return { route, error: new GatewayError(404, 'notFound', `${method} ${path} is not served; the catalogue knows ${methods.join('; ')}`) };
  }
  return { error: new GatewayError(404, 'notFound', `no endpoint ${method} ${path} in the catalogue`) };
}

const httpDate = (r: Release) => new Date(`${r.date}T00:00:00Z`).toUTCString();
const unixSeconds = (r: Release) => Math.floor(Date.parse(`${r.date}T00:00:00Z`) / 1000);

/** Headers of a deprecated endpoint (RFC 9745 Deprecation, successor Link, RFC 8594 Sunset). */
export function deprecationHeaders(view: ReleaseView, at: EndpointAt): Record<string, string> | null {
  const ep = at.endpoint;
  if (at.status !== 'deprecated' || ep.span.deprecated === null) return null;
  const releases = view.service.releases;
  const headers: Record<string, string> = { Deprecation: `@${unixSeconds(releases[ep.span.deprecated])}` };
  const successor = ep.replacement && /^[A-Z]+ (\/\S*)$/.exec(ep.replacement)?.[1];
  if (successor) headers.Link = `<${successor}>; rel="successor-version"`;
  if (ep.span.removed !== null) headers.Sunset = httpDate(releases[ep.span.removed]);
  return headers;
}
