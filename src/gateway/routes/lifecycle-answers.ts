// HTTP answers that follow from the catalogue's lifecycle at the pinned release:
// 404 (unknown, or added after the pin), 410 (removed), 405 (path alive, method not), and 404 with
// its reason for an endpoint the service's not-served.yaml lists.
import { lifecycleFacts } from '../../catalogue/lifecycle.js';
import type { NotServed } from '../../catalogue/model.js';
import type { ReleaseView } from '../../catalogue/resolve.js';
import { GatewayError } from '../errors.js';
import { isDeclined, isServed, methodOf, type Route, type RouteTable } from './route-table.js';

/**
 * The error for a request whose method+path is not served at the pin, and the view whose envelope
 * answers; `unknown` when the catalogue knows no life of that method and path at any release and does
 * not list it as not served (drift: an operation it does not have).
 */
export function notServed(table: RouteTable, method: string, path: string): { error: GatewayError; view?: ReleaseView; route?: Route; unknown?: true } {
  const knownHere = table.lives(path);
  // The best path the catalogue knows for this method decides (lives() lists best first).
  const first = knownHere.find((r) => methodOf(r) === method);
  if (first && isDeclined(first)) return { view: first.view, error: declinedError(first.declined) };
  const known = knownHere.filter((r): r is Route => !isDeclined(r));
  const best = first?.endpoint.endpoint.path;
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
  const alive = [...new Set(known.filter(isServed).map((r) => r.endpoint.endpoint.method))];
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

/** "GET /x is deliberately not served by this gateway: <reason>; use GET /y instead." */
function declinedError(n: NotServed): GatewayError {
  const instead = n.replacement ? `; use ${n.replacement} instead` : '';
  return new GatewayError('notServed', `${n.key} is deliberately not served by this gateway: ${n.reason}${instead}.`);
}
