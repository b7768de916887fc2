// Parameters, wherever they are written (service.yaml's signed and common ones, an endpoint's, a
// websocket method's), with the constraints between them and the enums they name.
import type { Constraint, Parameter } from '../model.js';
import type { Path, RawFile, ServiceBuild } from './context.js';
import { lifecycle } from './lifecycle.js';

/** Where a parameter is written: an endpoint's, service.yaml's commonParameters, or elsewhere (signed ones, a websocket method's). */
export type ParameterSite = 'endpoint' | 'common' | 'other';

/** Names every JavaScript object already has: a parameter so named could not be held as a plain field. */
const RESERVED_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

/** Why a parameter cannot have this name, or null (the loader's rule; the release import asks it too). */
export function reservedNameProblem(name: unknown): string | null {
  return typeof name === 'string' && RESERVED_NAMES.has(name) ? `the name is not allowed: every JavaScript object has a property "${name}", so the gateway could not hold the value as a field` : null;
}

export function parameter(
  b: ServiceBuild, f: RawFile, path: Path, p: Record<string, any>, defaultIn: Parameter['in'], owner: string, site: ParameterSite = 'other',
): Parameter {
  const param: Parameter = {
    ...lifecycle(b, f, path, p, `parameter ${p.name}`),
    name: p.name, in: p.in ?? defaultIn, required: p.required ?? p.in === 'path', description: p.description,
    schema: p.schema ?? { type: 'string' }, enum: p.enum, pathPrefix: p.pathPrefix,
  };
  if (p.multiSegment !== undefined) param.multiSegment = p.multiSegment;
  const what = `${owner}: parameter ${p.name}`;
  const reserved = reservedNameProblem(p.name);
  if (reserved) b.problem(f, [...path, 'name'], `${what}: ${reserved}`);
  if (param.in === 'path') pathParameter(b, f, path, p, what, site);
  else if (p.multiSegment !== undefined) b.problem(f, [...path, 'multiSegment'], `${what}: multiSegment applies to path parameters (in: path); here the gateway would ignore it`);
  if (param.schema.type === 'array' && param.in !== 'body') param.style = p.style === undefined ? ['json'] : [p.style].flat();
  else if (p.style !== undefined) {
    b.problem(f, [...path, 'style'], `${what}: style applies to list parameters (schema type: array) sent as text; here the gateway would ignore it`);
  }
  // Fields the runtime would ignore are refused, so what the YAML says is what the gateway does.
  if (p.pathPrefix !== undefined && site !== 'common') {
    b.problem(f, [...path, 'pathPrefix'], `${what}: pathPrefix only applies to service.yaml commonParameters; here the gateway would ignore it`);
  }
  if (p.enum !== undefined && p.schema?.enum !== undefined) {
    b.problem(f, [...path, 'schema', 'enum'], `${what}: schema.enum would be replaced by the values of enum "${p.enum}"; keep one of the two`);
  }
  b.paramSchemas.push({ f, path, p: param, owner });
  return param;
}

/** A path parameter is one segment (or several, multiSegment) of its endpoint's path: sent with every request, alive with the endpoint. */
function pathParameter(b: ServiceBuild, f: RawFile, path: Path, p: Record<string, any>, what: string, site: ParameterSite): void {
  if (site !== 'endpoint') {
    b.problem(f, [...path, 'in'], `${what}: in: path belongs to an endpoint whose path has a {${p.name}} segment`);
    return;
  }
  if (p.required === false) b.problem(f, [...path, 'required'], `${what}: a path parameter is always sent, so it cannot be required: false`);
  for (const k of ['added', 'deprecated', 'removed'] as const) {
    if (p[k] !== undefined) b.problem(f, [...path, k], `${what}: a path parameter lives as long as its endpoint, so it has no ${k} of its own (a path that changes is another endpoint)`);
  }
  const type = p.schema?.type;
  if (type === 'array' || type === 'object') {
    b.problem(f, [...path, 'schema', 'type'], `${what}: schema type ${type}: a path segment holds one value (string, integer, number or boolean)`);
  }
}

export function constraints(list: any[] | undefined): Constraint[] {
  return (list ?? []).map((c) => ({ ...c }));
}

export function checkConstraintNames(b: ServiceBuild, f: RawFile, path: Path, cons: Constraint[], params: Parameter[], what: string): void {
  const names = new Set([...params.map((p) => p.name)]);
  cons.forEach((c, i) => {
    for (const n of c.exclusive) {
      if (!names.has(n)) b.problem(f, [...path, i], `${what}: constraint names parameter "${n}", which the item does not have`);
    }
  });
}

export function checkParameterEnums(b: ServiceBuild): void {
  const check = (p: Parameter, owner: string) => {
    if (p.enum && !b.svc.enums[p.enum]) {
      b.problems.push({ ...p.at, message: `${owner}: parameter ${p.name} refers to enum "${p.enum}", which does not exist in enums.yaml` });
    }
  };
  for (const p of [...b.svc.signedParameters, ...b.svc.commonParameters]) check(p, 'service');
  for (const e of b.svc.endpoints) for (const p of e.parameters) check(p, e.key);
  for (const m of b.svc.wsMethods) for (const p of m.parameters) check(p, m.name);
}
