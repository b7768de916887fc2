// The upstream refused the egress IP (429/418 with Retry-After): refuse its rate-limited requests
// locally until then, so the ban does not escalate (the exchange bans an IP that keeps exceeding
// its limits for minutes to days), and tell other processes sharing the store.
import type { Logger } from '../../log.js';
import { GatewayError } from '../errors.js';
import type { ServiceLimits } from './counters.js';

export function ban(svc: ServiceLimits, status: number, retryAfter: string, logger: Logger): void {
  const secs = retryAfterSeconds(retryAfter);
  if (!secs) return;
  const until = Date.now() + secs * 1000;
  if (until <= svc.bannedUntil) return;
  svc.bannedUntil = until;
  logger.warn(`upstream of ${svc.id} answered ${status} with Retry-After ${retryAfter}: refusing its rate-limited requests locally for ${secs} s, so that the IP ban does not escalate`);
  // Other gateway processes sharing the store see the egress IP's counters full until then.
  for (const c of svc.counters) {
    if (c.limit.countedBy === 'ip') c.counter().block('ip', secs);
  }
}

/** The refusal of a request while the ban lasts (counted as refused). */
export function banned(svc: ServiceLimits, now: number): GatewayError {
  svc.refused++;
  const secs = Math.max(1, Math.ceil((svc.bannedUntil - now) / 1000));
  return new GatewayError('tooManyRequests', `Too many requests: the exchange refused the gateway's IP (429/418 with Retry-After) until ${new Date(svc.bannedUntil).toISOString()}; the gateway refuses locally until then so that the ban does not escalate. Retry after ${secs} s.`, { 'retry-after': String(secs) });
}

/** Retry-After as seconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); 0 when unreadable. */
function retryAfterSeconds(v: string): number {
  if (/^\d+$/.test(v.trim())) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? 0 : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
