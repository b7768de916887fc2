// Websocket upgrade routes, mirroring the upstream's: /ws/<stream>[/<stream>…] (raw streams),
// /stream?streams=<a>/<b>/… (combined streams) and /ws-api/v3 (websocket API). The request URL is
// forwarded to the upstream byte for byte; stream names are decoded only to be checked.
import { GatewayError } from '../errors.js';
import { parseTarget } from '../pipeline.js';

export type WsRoute =
  | { kind: 'streams'; combined: boolean; names: string[]; path: string; query: string }
  | { kind: 'wsApi'; path: string; query: string };

export const WS_API_PATH = '/ws-api/v3';
export const RAW_PATH = '/ws';
export const COMBINED_PATH = '/stream';
export const ROUTE_LIST = '/ws/<stream>, /stream?streams=<a>/<b>, /ws-api/v3';

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new GatewayError('invalid', `Invalid stream name '${part}': malformed percent-encoding.`);
  }
}

/**
 * The origin-form (path and query) of an upgrade's request target, parsed by the same function as
 * every HTTP request (absolute-form served as its path, a fragment refused as malformed).
 */
export function requestTarget(url: string): string {
  const { path, query } = parseTarget(url);
  return query ? `${path}?${query}` : path;
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
  throw new GatewayError('notFound', `No websocket route ${path}; routes: ${ROUTE_LIST}.`);
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
