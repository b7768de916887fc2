// Parameters, wherever they are written (service.yaml's signed and common ones, an endpoint's, a
// websocket method's), with the constraints between them and the enums they name.
import type { Constraint, Parameter } from '../model.js';
import type { Path, RawFile, ServiceBuild } from './context.js';
import { lifecycle } from './lifecycle.js';

export function parameter(
  b: ServiceBuild, f: RawFile, path: Path, p: Record<string, any>, defaultIn: Parameter['in'], owner: string, common = false,
): Parameter {
  const param: Parameter = {
    ...lifecycle(b, f, path, p, `parameter ${p.name}`),
    name: p.name, in: p.in ?? defaultIn, required: p.in === 'path' || (p.required ?? false), description: p.description,
    schema: p.schema ?? { type: 'string' }, enum: p.enum, pathPrefix: p.pathPrefix,
  };
  if (p.multiSegment === true) param.multiSegment = true;
  if (param.schema.type === 'array') param.style = p.style === undefined ? ['json'] : [p.style].flat();
  else if (p.style !== undefined) {
    b.problem(f, [...path, 'style'], `${owner}: parameter ${p.name}: style applies to list parameters (schema type: array); here the gateway would ignore it`);
  }
  // Fields the runtime would ignore are refused, so what the YAML says is what the gateway does.
  if (p.pathPrefix !== undefined && !common) {
    b.problem(f, [...path, 'pathPrefix'], `${owner}: parameter ${p.name}: pathPrefix only applies to service.yaml commonParameters; here the gateway would ignore it`);
  }
  if (p.enum !== undefined && p.schema?.enum !== undefined) {
    b.problem(f, [...path, 'schema', 'enum'], `${owner}: parameter ${p.name}: schema.enum would be replaced by the values of enum "${p.enum}"; keep one of the two`);
  }
  b.paramSchemas.push({ f, path, p: param, owner });
  return param;
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
