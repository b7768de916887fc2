// Whose count a request charges: the egress IP is one key for every client; an account is its API
// key and a client its token, hashed (never stored as sent).
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { RateLimit } from '../../catalogue/model.js';
import type { Counter, ServiceLimits } from './counters.js';

export function keyOf(c: Counter, svc: ServiceLimits, headers: IncomingHttpHeaders): string {
  if (c.limit.countedBy === 'ip') return 'ip';
  const k = c.limit.countedBy === 'apiKey' && svc.apiKeyHeader ? headers[svc.apiKeyHeader] : undefined;
  const a = headers.authorization;
  // Limits run after signing: in signing mode the key is the gateway's own, the one actually sent.
  return keyFor(c.limit.countedBy, typeof k === 'string' ? k : undefined, typeof a === 'string' ? a : undefined);
}

export function keyFor(countedBy: RateLimit['countedBy'], apiKey: string | undefined, authorization: string | undefined): string {
  switch (countedBy) {
    case 'ip':
      return 'ip';
    case 'apiKey':
      return apiKey ? digest(apiKey) : 'gateway'; // no key sent: the gateway's own account
    case 'token':
      return authorization ? digest(authorization) : 'anonymous';
  }
}

const digest = (s: string) => createHash('sha256').update(s).digest('base64url').slice(0, 22);
