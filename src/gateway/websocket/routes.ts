// Websocket upgrade routes, mirroring the upstream's: /ws/<stream>[/<stream>…] (raw streams),
// /stream?streams=<a>/<b>/… (combined streams) and /ws-api/v3 (websocket API). The request URL is
// forwarded to the upstream byte for byte; stream names are decoded only to be checked.
import { GatewayError } from '../errors.js';

export type WsRoute =
  | { kind: 'streams'; combined: boolean; names: string[]; path: string; query: string }
  | { kind: 'wsApi'; path: string; query: string };

export const WS_API_PATH = '/ws-api/v3';
export const ROUTE_LIST = '/ws/<stream>, /stream?streams=<a>/<b>, /ws-api/v3';

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new GatewayError(400, 'invalid', `Invalid stream name '${part}': malformed percent-encoding.`);
  }
}

/**
 * The origin-form (path and query) of an upgrade's request target. A proxy-style absolute-form
 * target (`GET http://host/ws/...`) is served like its path (RFC 9112 §3.2.2); a fragment is never
 * part of a request (and the upstream URL could not carry it); other forms are not websocket routes.
 */
export function requestTarget(url: string): string {
  if (url.includes('#')) throw new GatewayError(400, 'invalid', "Invalid request target: it contains '#' (a fragment is never sent in a request).");
  const absolute = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?]*/.exec(url);
  const target = absolute ? url.slice(absolute[0].length) : url;
  if (absolute && !target.startsWith('/')) return `/${target}`;
  if (!target.startsWith('/')) throw new GatewayError(400, 'invalid', `Invalid request target '${target.slice(0, 64)}': expected a path such as ${ROUTE_LIST.split(', ')[0]}.`);
  return target;
}

/** Route of an upgrade request target in origin-form (path and raw query), or a 404 GatewayError. */
export function routeOf(url: string): WsRoute {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? '' : url.slice(q + 1);
  if (path === WS_API_PATH || path === `${WS_API_PATH}/`) return { kind: 'wsApi', path, query };
  if (path === '/ws' || path.startsWith('/ws/')) {
    const names = path.slice(4).split('/').filter((s) => s !== '').map(decode);
    return { kind: 'streams', combined: false, names, path, query };
  }
  if (path === '/stream' || path === '/stream/') {
    // Query text is read raw: form decoding would turn the '+' of "@+08:00" into a space.
    const names: string[] = [];
    for (const pair of query.split('&')) {
      if (!pair.startsWith('streams=')) continue;
      for (const n of pair.slice('streams='.length).split('/')) if (n !== '') names.push(decode(n));
    }
    return { kind: 'streams', combined: true, names, path, query };
  }
  throw new GatewayError(404, 'notFound', `No websocket route ${path}; routes: ${ROUTE_LIST}.`);
}

/** Upstream URL for a route: streams base + the client's path and query; the websocket-API URL + the client's query. */
export function upstreamUrl(route: WsRoute, base: string, target: string): string {
  if (route.kind === 'wsApi') {
    if (!route.query) return base;
    return `${base}${base.includes('?') ? '&' : '?'}${route.query}`;
  }
  const u = new URL(base);
  const prefix = u.pathname.replace(/\/+$/, '');
  return `${u.protocol}//${u.host}${prefix}${target}`;
}
