// Header rules of a forwarding hop. Hop-by-hop headers describe one connection, not the message (RFC 9110 §7.6.1): never forwarded either
// way, together with every header the Connection header names (a client could otherwise strip or
// smuggle an end-to-end header past the gateway by listing it there).
import type { IncomingHttpHeaders } from 'node:http';

const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer',
  'transfer-encoding', 'upgrade', 'host', 'content-length', 'expect', 'http2-settings',
]);

/** End-to-end headers of `headers`, less `drop`, as a new object. */
export function dropHopByHop(headers: IncomingHttpHeaders, drop?: ReadonlySet<string>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const named = headers.connection ? connectionNamed(headers.connection) : null;
  for (const k in headers) {
    const v = headers[k];
    if (v === undefined || HOP_BY_HOP.has(k) || drop?.has(k) || named?.has(k)) continue;
    out[k] = v;
  }
  return out;
}

function connectionNamed(v: string | string[]): Set<string> | null {
  // The usual values name no other header: no set to build (every keep-alive client sends one).
  if (v === 'keep-alive' || v === 'close' || v === 'Keep-Alive') return null;
  const text = Array.isArray(v) ? v.join(',') : v;
  return new Set(text.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean));
}

/** Append `value` to a Vary header value unless already listed: Vary is merged, never replaced. */
export function appendVary(current: string | undefined, value: string): string {
  if (!current) return value;
  const have = current.toLowerCase().split(/\s*,\s*/);
  const add = value.split(/\s*,\s*/).filter((v) => !have.includes(v.toLowerCase()));
  return add.length ? `${current}, ${add.join(', ')}` : current;
}
