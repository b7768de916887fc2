// service.yaml rateLimits: one limit per kind and interval at any release; ORDERS name the
// endpoints that count, which must exist; apiKey counting needs the header that carries the key.
import type { RateLimit } from '../model.js';
import { durationSeconds } from '../duration.js';
import type { RawFile, ServiceBuild } from './context.js';
import { checkOverlaps, lifecycle } from './lifecycle.js';

export function rateLimits(b: ServiceBuild, sf: RawFile, list: Record<string, any>[]): void {
  const all = (sf.data as { rateLimits?: unknown[] }).rateLimits ?? [];
  const keys = new Set([...b.svc.endpoints.map((e) => e.key), ...b.svc.wsMethods.map((m) => `ws-api ${m.name}`)]);
  for (const r of list) {
    const path = ['rateLimits', all.indexOf(r)];
    const what = `rate limit ${r.kind} per ${r.interval}`;
    const limit: RateLimit = {
      ...lifecycle(b, sf, path, r, what), kind: r.kind, interval: r.interval, seconds: durationSeconds(r.interval),
      limit: r.limit, countedBy: r.countedBy, counts: r.counts, pathPrefix: r.pathPrefix, header: r.header,
    };
    (r.counts ?? []).forEach((k: string, i: number) => {
      if (!keys.has(k)) b.problem(sf, [...path, 'counts', i], `${what}: counts names endpoint "${k}", which the catalogue does not have`);
      else if (r.pathPrefix && !k.startsWith('ws-api ') && !k.slice(k.indexOf(' ') + 1).startsWith(r.pathPrefix)) b.problem(sf, [...path, 'counts', i], `${what}: counts names endpoint "${k}", outside its pathPrefix ${r.pathPrefix}`);
    });
    if (r.countedBy === 'apiKey' && !b.svc.apiKeyHeader) {
      b.problem(sf, [...path, 'countedBy'], `${what}: countedBy apiKey needs the API-key header, but service ${b.id} declares no security.apiKeyHeader`);
    }
    b.svc.rateLimits.push(limit);
  }
  checkOverlaps(b, b.svc.rateLimits, (l) => `${l.kind} ${l.interval} ${l.countedBy} ${l.pathPrefix ?? ''}`, 'duplicate rate limit');
}
