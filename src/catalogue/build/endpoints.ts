// endpoints/*.yaml: each endpoint with its parameters, security, weight and body, checked against
// the service (its builders, its kind, the API-key header); then, across files, duplicates and
// replacements that name no endpoint.
import type { Constraint, Endpoint, Parameter } from '../model.js';
import type { RawFile, ServiceBuild } from './context.js';
import { operationKey } from '../operation-key.js';
import { checkOverlaps, lifecycle } from './lifecycle.js';
import { checkConstraintNames, constraints, parameter } from './parameters.js';
import { checkPath } from './paths.js';
import { checkHonoured, security } from './security.js';
import { weights } from './weights.js';

/** An endpoint as written in YAML (already checked against the JSON Schema). */
interface EndpointInput {
  method: string; path: string; summary?: string; tags?: string; security?: unknown;
  parameters?: Record<string, unknown>[]; constraints?: Constraint[]; body?: Record<string, unknown>; builder?: string;
  weight?: number | Record<string, unknown>; userData?: true;
  added?: string; deprecated?: string; removed?: string; replacement?: string; note?: string; source?: string;
}

export function endpoints(b: ServiceBuild, f: RawFile, defaultIn: Parameter['in']): void {
  const file = f.data as { module: string; endpoints: EndpointInput[] };
  file.endpoints.forEach((e, i) => {
    const path: (string | number)[] = ['endpoints', i];
    const key = `${e.method} ${e.path}`;
    const parameters = (e.parameters ?? []).map((p, j) => parameter(b, f, [...path, 'parameters', j], p as any, defaultIn, key, 'endpoint'));
    const ep: Endpoint = {
      ...lifecycle(b, f, path, e as Record<string, any>, key),
      service: b.id, module: file.module, method: e.method, path: e.path, key,
      summary: e.summary, tags: e.tags, security: security(b, f, [...path, 'security'], e.security, key),
      parameters, constraints: constraints(e.constraints), body: e.body, builder: e.builder,
    };
    if (e.weight !== undefined) Object.assign(ep, weights(b, f, [...path, 'weight'], e.weight, ep));
    if (e.userData) ep.userData = true;
    // A JSON body field is named apart from the query string's parameters (GitHub has both kinds of `per_page`).
    checkOverlaps(b, parameters, (p) => (p.in === 'body' ? `body field ${p.name}` : p.name), `${key}: duplicate parameter`);
    checkPath(b, f, path, ep);
    checkConstraintNames(b, f, [...path, 'constraints'], ep.constraints, parameters, key);
    if (e.builder && !b.svc.builders.some((x) => x.name === e.builder)) {
      b.problem(f, [...path, 'builder'], `${key}: builder "${e.builder}" is not declared in service.yaml builders (${b.svc.builders.map((x) => x.name).join(', ') || 'none'})`);
    }
    if (b.svc.kind === 'builder' && !e.builder) b.problem(f, path, `${key}: service ${b.id} is of kind builder, so the endpoint must name a builder`);
    checkHonoured(b, f, path, ep);
    if (ep.body) b.bodies.push({ f, path, e: ep });
    // every span checked: security entries, parameters must lie inside the endpoint's life
    for (const p of [...parameters, ...ep.security]) {
      if (p.span.added < ep.span.added && p.added !== undefined) {
        b.warnings.push({ ...p.at, message: `${key}: ${'name' in p ? `parameter ${(p as Parameter).name}` : 'security'} added (${p.added}) before its endpoint (${ep.added})` });
      }
    }
    b.svc.endpoints.push(ep);
  });
}

/** One operation per method and path shape at a release: `/a/{id}` and `/a/{name}` are the same operation. */
export function checkEndpointDuplicates(b: ServiceBuild): void {
  checkOverlaps(b, b.svc.endpoints, operationKey, (e, other) => (e.key === other.key
    ? `duplicate endpoint (${e.key}, also at ${other.at.file}:${other.at.line})`
    : `duplicate endpoint: ${e.key} and ${other.key} (${other.at.file}:${other.at.line}) differ only in parameter names, so they are one operation`));
}

export function checkReplacements(b: ServiceBuild): void {
  const keys = new Set([...b.svc.endpoints.map((e) => e.key), ...b.svc.wsMethods.map((m) => `ws-api ${m.name}`)]);
  for (const e of b.svc.endpoints) {
    if (e.replacement && /^[A-Z]+ \//.test(e.replacement) && !keys.has(e.replacement)) {
      b.warnings.push({ ...e.at, message: `${e.key}: replacement "${e.replacement}" is not an endpoint of the catalogue` });
    }
  }
}
