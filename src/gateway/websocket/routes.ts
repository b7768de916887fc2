// Websocket upgrade routes, the upstream's own paths as the catalogue records them (streams.yaml
// `paths`, ws-api.yaml `path`): <raw>/<stream>[/<stream>…] (raw streams), <combined>?streams=<a>/<b>/…
// (combined streams) and the websocket API's path. The stream request target is forwarded to the
// upstream byte for byte; stream names are decoded only to be checked.
import { GatewayError } from '../errors.js';
import { parseTarget } from '../pipeline.js';

export type WsRoute =
  | { kind: 'streams'; combined: boolean; names: string[]; path: string; query: string }
  | { kind: 'wsApi'; path: string; query: string };

/** The websocket paths this gateway serves (absent: its catalogue has no such side). */
export interface WsPaths {
  raw?: string;
  combined?: string;
  wsApi?: string;
}

/** The routes, for a 404's message. */
export function routeList(paths: WsPaths): string {
  const list = [
    paths.raw && `${paths.raw}/<stream>`, paths.combined && `${paths.combined}?streams=<a>/<b>`, paths.wsApi,
  ].filter(Boolean);
  return list.length ? list.join(', ') : 'none (the catalogue has no websocket streams or API)';
}

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
export function routeOf(url: string, paths: WsPaths): WsRoute {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? '' : url.slice(q + 1);
  const { raw, combined, wsApi } = paths;
  if (wsApi && (path === wsApi || path === `${wsApi}/`)) return { kind: 'wsApi', path, query };
  if (raw && (path === raw || path.startsWith(`${raw}/`))) {
    const names = path.slice(raw.length + 1).split('/').filter((s) => s !== '').map(decode);
    return { kind: 'streams', combined: false, names, path, query };
  }
  if (combined && (path === combined || path === `${combined}/`)) {
    // Query text is read raw: form decoding would turn the '+' of "@+08:00" into a space.
    const names: string[] = [];
    for (const pair of query.split('&')) {
      if (!pair.startsWith('streams=')) continue;
      for (const n of pair.slice('streams='.length).split('/')) if (n !== '') names.push(decode(n));
    }
    return { kind: 'streams', combined: true, names, path, query };
  }
  throw new GatewayError('notFound', `No websocket route ${path}; routes: ${routeList(paths)}.`);
}

/**
 * The upstream URL of an upgrade. Both websocket upstreams are base URLs, like REST's: the base's
 * own path (if any) is a prefix, then the route's path (streams: the client's, byte for byte; the
 * websocket API: the catalogue's), then the base's query and the client's.
 */
export function upstreamUrl(route: WsRoute, base: string, paths: WsPaths): string {
  const u = new URL(base);
  const prefix = u.pathname.replace(/\/+$/, '');
  const path = route.kind === 'wsApi' ? paths.wsApi! : route.path;
  const query = [u.search.slice(1), route.query].filter(Boolean).join('&');
  return `${u.protocol}//${u.host}${prefix}${path}${query ? `?${query}` : ''}`;
}

/**
 * A websocket-API upstream given the older way, as the full URL (its path already ends with the
 * websocket API's path), read as its base URL so that the path is not joined twice.
 */
export function wsApiBase(url: string, path: string): string {
  const u = new URL(url);
  const own = u.pathname.replace(/\/+$/, '');
  if (!own.endsWith(path)) return url;
  u.pathname = own.slice(0, own.length - path.length) || '/';
  return u.toString();
}
