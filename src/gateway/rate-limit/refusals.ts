// The rate limiter's refusals: 429 naming the limit, the request's cost and when to retry; 503
// when the store that must count cannot (--rate-limit-fail closed).
import { GatewayError } from '../errors.js';
import type { Counter } from './counters.js';
import type { FailMode } from './store.js';

export function tooMany(c: Counter, points: number, used: number, msBeforeNext: number): GatewayError {
  const secs = Math.max(1, Math.ceil(msBeforeNext / 1000));
  const why = points > c.budget
    ? `this request alone (${points}) is more than the exchange's ${c.what}`
    : `this request (${points}) would exceed the exchange's ${c.what}: ${Math.max(0, used)} used in the current window`;
  const headers: Record<string, string> = { 'retry-after': String(secs) };
  if (c.header) headers[c.header] = String(Math.max(0, used));
  return new GatewayError('tooManyRequests', `Too many requests: ${why}. Retry after ${secs} s.`, headers);
}

/** A request's charge failed in the store `name` (reachable only with fail closed: open falls back to memory inside the store). */
export function storeFailed(name: string, e: Error, fail: FailMode): GatewayError {
  const refusal = new GatewayError('overloaded', `Rate limits cannot be checked: the rate-limit store ${name} is unreachable (${e.message === 'Command timed out' ? 'no answer in time' : e.message}); the gateway refuses rather than risk the exchange banning its IP (--rate-limit-fail ${fail}).`, { 'retry-after': '1' });
  refusal.quiet = true; // the store logged the outage once
  return refusal;
}

/** A frame arrived while the store `name` is down and fail is closed (frames are judged synchronously). */
export function storeDown(name: string): GatewayError {
  const e = new GatewayError('overloaded', `Rate limits cannot be checked: the rate-limit store ${name} is unreachable; the gateway refuses rather than risk the exchange banning its IP (--rate-limit-fail closed).`);
  e.quiet = true;
  return e;
}
