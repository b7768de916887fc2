// Start-up check of the configured upstreams: a gateway whose upstream is mistyped or down would
// otherwise start silently and answer 502 to every proxied request. After listening, each distinct
// upstream (REST, streams, websocket API) gets one TCP connection attempt, bounded in time; one
// warning per upstream that cannot be reached, once. It never delays or stops serving: an
// upstream may well come up after the gateway.
import { connect } from 'node:net';
import type { Catalogue } from '../catalogue/model.js';
import { UPSTREAM_KINDS, upstreamBase } from './upstream-base.js';

export interface UpstreamTarget {
  /** "exchange" for REST, "exchange.streams" / "exchange.wsApi" for the others, as --upstream names them. */
  name: string;
  url: string;
}

/** Every configured upstream of every service, one entry per distinct URL (the first name using it). */
export function upstreamTargets(catalogue: Catalogue, overrides: Record<string, string>): UpstreamTarget[] {
  const byUrl = new Map<string, UpstreamTarget>();
  for (const s of catalogue.services) {
    for (const kind of UPSTREAM_KINDS) {
      const url = upstreamBase(s, kind, overrides);
      if (url && !byUrl.has(url)) byUrl.set(url, { name: kind === 'rest' ? s.id : `${s.id}.${kind}`, url });
    }
  }
  return [...byUrl.values()];
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'ws:': 80, 'https:': 443, 'wss:': 443 };

/** The URL as it may be logged: no credentials, no query. */
function shown(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return '(not a URL)';
  }
}

/** Why `url` cannot be reached (a TCP connection within `timeoutMs`), or null when it can. */
export function unreachable(url: string, timeoutMs: number): Promise<string | null> {
  let host: string, port: number;
  try {
    const u = new URL(url);
    host = u.hostname.replace(/^\[|\]$/g, '');
    port = Number(u.port) || DEFAULT_PORTS[u.protocol] || 80;
  } catch {
    return Promise.resolve('not a URL');
  }
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.unref(); // a check in progress never keeps the process alive (a gateway stopped at once exits at once)
    const done = (why: string | null) => { socket.destroy(); resolve(why); };
    socket.setTimeout(timeoutMs, () => done(`no connection within ${timeoutMs} ms`));
    socket.once('connect', () => done(null));
    socket.once('error', (e: NodeJS.ErrnoException) => done(e.code ?? e.message));
  });
}

/**
 * Try every target at once; `warn` once per unreachable one, e.g.
 * `upstream exchange (http://127.0.0.1:9) cannot be reached: ECONNREFUSED; its requests will answer 502 until it can`.
 * Starts 100 ms after the call; resolves when every attempt has ended (at most `timeoutMs` later).
 */
export async function warnUnreachableUpstreams(targets: UpstreamTarget[], warn: (message: string) => void, timeoutMs = 3000): Promise<void> {
  // A moment after listening, as the proxy's warm-up: the probes' lookups and connects (~7 ms of the
  // main thread here) would otherwise come before the first answers (a readiness probe's).
  await new Promise((r) => setTimeout(r, 100));
  await Promise.all(targets.map(async (t) => {
    const why = await unreachable(t.url, timeoutMs);
    if (why) warn(`upstream ${t.name} (${shown(t.url)}) cannot be reached: ${why}; its requests will fail until it can`);
  }));
}
