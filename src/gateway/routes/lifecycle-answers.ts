// HTTP answers that follow from the catalogue's lifecycle at the pinned release:
// 404 (unknown, or added after the pin), 410 (removed), 405 (path alive, method not).
import { lifecycleFacts } from '../../catalogue/lifecycle.js';
import { GatewayError } from '../errors.js';
import type { Route, RouteTable } from './route-table.js';

/**
 * The error for a request whose method+path is not served at the pin; `unknown` when the catalogue
 * knows no life of that method and path at any release (drift: an operation it does not have).
 */
export function notServed(table: RouteTable, method: string, path: string): { error: GatewayError; route?: Route; unknown?: true } {
  const known = table.lives(path);
  // The best path the catalogue knows for this method decides (lives() lists best first).
  const best = known.find((r) => r.endpoint.endpoint.method === method)?.endpoint.endpoint.path;
  const sameMethod = known.filter((r) => r.endpoint.endpoint.method === method && r.endpoint.endpoint.path === best);
  if (sameMethod.length) {
    // Of several lives of one endpoint, answer with the one nearest the pin.
    const removed = sameMethod.filter((r) => r.endpoint.status === 'removed').at(-1);
    const route = removed ?? sameMethod[0];
    const ep = route.endpoint.endpoint;
    const facts = lifecycleFacts(ep, route.view.service.releases, route.view.at);
    if (route.endpoint.status === 'removed') return { route, error: new GatewayError('gone', `${ep.key} was ${facts}`) };
    return { route, error: new GatewayError('notFound', `${ep.key} was ${facts}`) };
  }
  const alive = [...new Set(known.filter((r) => r.endpoint.status === 'alive' || r.endpoint.status === 'deprecated').map((r) => r.endpoint.endpoint.method))];
  const allow = alive.includes('GET') && !alive.includes('HEAD') ? [...alive, 'HEAD'] : alive; // HEAD answers every GET
  if (allow.length) {
    const route = known[0];
    const rel = route.view.release ? ` at ${route.view.release.id}` : '';
    return {
      route,
      error: new GatewayError('methodNotAllowed', `method ${method} is not allowed for ${path}${rel}; allowed: ${allow.join(', ')}`, { Allow: allow.join(', ') }),
      unknown: true,
    };
  }
  if (known.length) {
    const route = known[0];
    const methods = known.map((r) => `${r.endpoint.endpoint.key} (${lifecycleFacts(r.endpoint.endpoint, r.view.service.releases, r.view.at)})`);
    return { route, error: new GatewayError('notFound', `${method} ${path} is not served; the catalogue knows ${methods.join('; ')}`), unknown: true };
  }
  return { error: new GatewayError('notFound', `no endpoint ${method} ${path} in the catalogue`), unknown: true };
}
