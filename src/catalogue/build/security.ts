// Security requirements (an endpoint's or a websocket method's), and the security and other facts
// the gateway could not honour for an endpoint, refused rather than silently ignored.
import type { Endpoint, SecurityEntry } from '../model.js';
import type { Path, RawFile, ServiceBuild } from './context.js';
import { checkOverlaps, lifecycle } from './lifecycle.js';

export function security(b: ServiceBuild, f: RawFile, path: Path, sec: unknown, what: string): SecurityEntry[] {
  const list = sec === undefined ? [{ scheme: 'NONE' }] : typeof sec === 'string' ? [{ scheme: sec }] : (sec as any[]);
  const entries = list.map((e: any, i) => ({
    ...lifecycle(b, f, typeof sec === 'object' ? [...path, i] : path, e, `${what} security ${e.scheme}`),
    scheme: e.scheme,
  }));
  checkOverlaps(b, entries, () => 'security', `${what}: security requirements overlap`);
  return entries;
}

/** Security the gateway cannot enforce for this endpoint, and other facts it would ignore. */
export function checkHonoured(b: ServiceBuild, f: RawFile, path: Path, ep: Endpoint): void {
  for (const sec of ep.security) {
    if (sec.scheme === 'NONE') continue;
    if (!b.svc.apiKeyHeader) {
      b.problems.push({ ...sec.at, message: `${ep.key}: security ${sec.scheme} needs the API-key header the gateway checks, but service ${b.id} declares no security.apiKeyHeader in service.yaml` });
    }
    if (sec.scheme === 'SIGNED' && ep.builder) {
      b.problems.push({ ...sec.at, message: `${ep.key}: security SIGNED on builder endpoint (builder ${ep.builder}): signatures are checked by an upstream, and a builder answers locally; use API_KEY or NONE` });
    }
  }
  if (ep.body && ep.method === 'GET') {
    b.problem(f, [...path, 'body'], `${ep.key}: a GET request has no body; the gateway would never check this body schema`);
  }
  if (!ep.body && ep.method === 'GET') {
    ep.parameters.forEach((p, j) => {
      if (p.in === 'body') b.problem(f, [...path, 'parameters', j], `${ep.key}: parameter ${p.name} is in: body, but a GET request has no body; the gateway would never check it`);
    });
  }
  if (ep.body) {
    ep.parameters.forEach((p, j) => {
      if (p.in === 'body') b.problem(f, [...path, 'parameters', j], `${ep.key}: parameter ${p.name} is in: body, but the endpoint's JSON body is described by body:; describe the field there`);
    });
  }
}
