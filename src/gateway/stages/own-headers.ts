// The headers the gateway adds to every answer it gives or relays, computed in one place for every
// path: X-Gateway-Release, the deprecation headers of the route, and CORS. A credentialed answer
// (an endpoint that needs an API key or signature, or any answer in signing mode) never carries
// `Access-Control-Allow-Origin: *`: only an origin the operator listed gets one.
import { RELEASE_HEADER, RELEASE_HEADER_NAME } from '../profile.js';
import type { ReleaseView } from '../../catalogue/resolve.js';
import type { Route } from '../routes/route-table.js';

export const CORS_EXPOSE = `${RELEASE_HEADER_NAME}, Deprecation, Sunset, Link, Retry-After, X-Request-Id`;

export interface CorsPolicy {
  /** Origins allowed to read answers; '*' allows any origin for public (uncredentialed) answers. */
  origins: ReadonlySet<string>;
  /** Services whose every request the gateway signs or authenticates (signing mode). */
  credentialedServices: ReadonlySet<string>;
}

/** True when the answer to this route is made with credentials the client did not bring itself. */
export function credentialed(policy: CorsPolicy, view: ReleaseView | undefined, route: Route | undefined): boolean {
  if (view && policy.credentialedServices.has(view.service.id)) return true;
  return route !== undefined && route.endpoint.security !== 'NONE';
}

/** The Access-Control-Allow-Origin value for `origin`, or undefined for none. */
export function allowOrigin(policy: CorsPolicy, origin: string, isCredentialed: boolean): string | undefined {
  if (policy.origins.has(origin)) return origin;
  if (!isCredentialed && policy.origins.has('*')) return '*';
  return undefined;
}

/** Own headers of an answer for `view` (the owning service) and `route` (when one matched). */
export function ownHeaders(policy: CorsPolicy, origin: string | undefined, view: ReleaseView | undefined, route: Route | undefined): Record<string, string> {
  const own: Record<string, string> = {};
  if (view?.release) own[RELEASE_HEADER] = view.release.id;
  if (route?.deprecation) Object.assign(own, route.deprecation);
  if (origin !== undefined) {
    own.vary = 'Origin'; // the answer depends on Origin whether or not it is allowed
    const allowed = allowOrigin(policy, origin, credentialed(policy, view, route));
    if (allowed) {
      own['access-control-allow-origin'] = allowed;
      own['access-control-expose-headers'] = CORS_EXPOSE;
    }
  }
  return own;
}

/** Headers of a CORS preflight answer (204) for a path that allows `methods`. */
export function preflightHeaders(
  policy: CorsPolicy, origin: string, requestHeaders: string | undefined, methods: string[], isCredentialed: boolean,
): Record<string, string> {
  const h: Record<string, string> = { vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers' };
  const allowed = allowOrigin(policy, origin, isCredentialed);
  if (!allowed) return h;
  h['access-control-allow-origin'] = allowed;
  h['access-control-allow-methods'] = methods.join(', ');
  if (requestHeaders) h['access-control-allow-headers'] = requestHeaders;
  h['access-control-max-age'] = '600';
  return h;
}
