// How the text of a setting (a flag's value, an environment variable, a config file's scalar) becomes
// its value. Each parser throws a UsageError that names the flag (`invalid --port "x"; …`); config.ts
// renames it to the variable or file key the value really came from.
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { UsageError } from './usage-error.js';

export const int = (min: number, max: number) => (v: string, name: string): number => {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < min || n > max) throw new UsageError(`invalid --${name} "${v}"; expected a whole number from ${min} to ${max}`);
  return n;
};

export function bool(v: string, name: string): boolean {
  if (/^(1|true|yes|on)$/i.test(v)) return true;
  if (/^(0|false|no|off|)$/i.test(v)) return false;
  throw new UsageError(`invalid --${name} "${v}"; expected true or false`);
}

/** on|off (also true/false, as the YAML file may hold a boolean). */
export function onOff(v: string, name: string): boolean {
  if (/^(on|true)$/i.test(v)) return true;
  if (/^(off|false)$/i.test(v)) return false;
  throw new UsageError(`invalid --${name} "${v}"; expected on or off`);
}

export const choice = <T extends string>(valid: readonly T[]) => (v: string, name: string): T => {
  if (!valid.includes(v as T)) throw new UsageError(`invalid --${name} "${v}"; valid: ${valid.join(', ')}`);
  return v as T;
};

/** A whole number, or "auto" (0: worked out at start-up, e.g. the connection cap from the descriptor limit). */
export const intOrAuto = (min: number, max: number) => (v: string, name: string): number => {
  if (v === 'auto') return 0;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) throw new UsageError(`invalid --${name} "${v}"; expected auto or a whole number from ${min} to ${max}`);
  return Number(v);
};

/** A number of processes, or "auto" for one per core. */
export function workers(v: string, name: string): number {
  return v === 'auto' ? availableParallelism() : int(1, 256)(v, name);
}

/**
 * A listen address: an IP address or a host name (RFC 1123 labels). A dotted number that is not an
 * IPv4 address (999.1.1.1) is refused here rather than sent to DNS. Whether this machine can listen
 * there is known only when it tries (see listen-error.ts).
 */
export function host(v: string, name: string): string {
  if (isIP(v)) return v;
  const label = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
  if (v.length <= 253 && new RegExp(`^${label}(?:\\.${label})*\\.?$`).test(v) && !/^[\d.]+$/.test(v)) return v;
  throw new UsageError(`invalid --${name} "${v}"; expected an IP address (127.0.0.1, 0.0.0.0, ::1, ::) or a host name such as localhost`);
}

/** memory, or a Redis URL (redis://[user:password@]host[:port][/db], rediss:// for TLS). */
export function redisStore(v: string, name: string): string {
  if (v === 'memory') return v;
  let ok = false;
  try {
    ok = /^rediss?:$/.test(new URL(v).protocol);
  } catch {
    /* not a URL */
  }
  if (!ok) throw new UsageError(`invalid --${name} "${v}"; expected memory or redis://host:6379/0 (rediss:// for TLS)`);
  return v;
}

/** off, or the Redis URL a fleet shares (the same form as the rate-limit store's). */
export function fleetStore(v: string, name: string): string {
  if (v === 'off') return v;
  if (v === 'memory') throw new UsageError(`invalid --${name} "${v}"; expected off or redis://host:6379/0 (rediss:// for TLS)`);
  return redisStore(v, name).replace(/^memory$/, 'off');
}

/** An upstream base URL: http(s) or ws(s). */
export function upstreamUrl(v: string, what: string): string {
  try {
    const u = new URL(v);
    if (!/^(https?|wss?):$/.test(u.protocol)) throw new Error('protocol');
    return v;
  } catch {
    throw new UsageError(`invalid upstream URL "${v}" for ${what}; expected http(s):// or ws(s)://`);
  }
}

/** A CORS origin: * or scheme://host[:port]. */
export function corsOrigin(o: string): string {
  if (o !== '*' && !/^https?:\/\/[^/\s]+$/.test(o)) throw new UsageError(`invalid --cors-origin "${o}"; expected * or an origin such as https://app.example.com (scheme, host, optional port; no path)`);
  return o;
}

/** A value fit to print: a URL's password (a Redis URL may carry one) replaced by ***. */
export function shown(value: unknown, secret: boolean | undefined): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? 'unset';
  if (!secret) return text;
  try {
    const u = new URL(text);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return text;
  }
}
