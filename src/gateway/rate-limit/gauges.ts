// The limiter's gauges: per limit the lowest budget left over the keys with a live window, per
// service its local refusals and the seconds left of an upstream ban.
import type { ServiceLimits } from './counters.js';

export function gauges(services: Map<string, ServiceLimits>): Record<string, number> {
  const out: Record<string, number> = {};
  const now = Date.now();
  for (const svc of services.values()) {
    const id = svc.id.replace(/[^a-z0-9]+/gi, '_');
    for (const c of svc.counters) {
      // The lowest remaining over the keys with a live window (for ip there is one key).
      let remaining = c.budget;
      for (const [key, s] of c.seen) {
        if (s.resetAt <= now) c.seen.delete(key); // windows past: forget them (bounded by accounts active per window)
        else remaining = Math.min(remaining, Math.max(0, c.budget - s.used));
      }
      out[c.gauge] = remaining;
    }
    out[`rate_limit_${id}_refused_total`] = svc.refused;
    out[`rate_limit_${id}_ban_seconds`] = Math.max(0, Math.ceil((svc.bannedUntil - now) / 1000));
  }
  return out;
}
