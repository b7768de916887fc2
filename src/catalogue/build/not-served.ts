// not-served.yaml: the endpoints clients call that the gateway deliberately does not serve, each with
// its reason and source (the schema requires both, not blank). Across the service: an endpoint is
// catalogued or listed here, never both; listed once; a replacement is an endpoint served at the
// newest release, since the refusal sends clients to it.
import { existsAt } from '../lifecycle.js';
import type { NotServed } from '../model.js';
import { operationKey, operationKeyOf } from '../operation-key.js';
import { parseTemplate } from '../path-template.js';
import type { RawFile, ServiceBuild } from './context.js';
import { pathProblem } from './paths.js';

interface NotServedInput { method: string; path: string; replacement?: string; reason: string; source: string; note?: string }

export function notServed(b: ServiceBuild, f: RawFile): void {
  const file = f.data as { endpoints: NotServedInput[] };
  file.endpoints.forEach((e, i) => {
    const key = `${e.method} ${e.path}`;
    const t = pathProblem(e.path) ?? parseTemplate(e.path);
    if (typeof t === 'string') b.problem(f, ['endpoints', i, 'path'], `not served ${e.method} ${JSON.stringify(e.path)}: ${t}`);
    if (!e.reason.trim()) b.problem(f, ['endpoints', i, 'reason'], `not served ${key}: the reason is blank; say why the gateway does not serve it (the refusal tells the client)`);
    if (!e.source.trim()) b.problem(f, ['endpoints', i, 'source'], `not served ${key}: the source is blank; name the documents that show the reason`);
    b.svc.notServed.push({
      method: e.method, path: e.path, key, replacement: e.replacement, reason: e.reason.trim(), source: e.source, note: e.note,
      at: { file: f.file, line: f.lineOf(['endpoints', i]) },
    });
  });
}

/** Run once the endpoints are built: one list or the other, once each; replacements served at the newest release. */
export function checkNotServed(b: ServiceBuild): void {
  const endpoints = new Map(b.svc.endpoints.map((e) => [operationKey(e), e]));
  const byKey = new Map(b.svc.endpoints.map((e) => [e.key, e]));
  const listed = new Map<string, NotServed>();
  const newest = Math.max(b.svc.releases.length - 1, 0);
  for (const n of b.svc.notServed) {
    const op = operationKey(n);
    const twice = listed.get(op);
    if (twice) b.problems.push({ ...n.at, message: `not served ${n.key}: listed twice (also at ${twice.at.file}:${twice.at.line})` });
    listed.set(op, n);
    const e = endpoints.get(op);
    if (e) b.problems.push({ ...n.at, message: `not served ${n.key}: also an endpoint of the catalogue (${e.at.file}:${e.at.line}); an endpoint is catalogued or listed as not served, never both` });
    if (n.replacement === undefined) continue;
    const r = byKey.get(n.replacement) ?? b.svc.endpoints.find((x) => operationKey(x) === operationKeyOf(n.replacement!));
    if (!r) b.problems.push({ ...n.at, message: `not served ${n.key}: replacement "${n.replacement}" is not an endpoint of the catalogue` });
    else if (!existsAt(r.span, newest)) b.problems.push({ ...n.at, message: `not served ${n.key}: replacement "${n.replacement}" is not served at the newest release${b.svc.versioned ? ` (${b.svc.releases[newest].id})` : ''}` });
  }
}
