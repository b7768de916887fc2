// Check a JSON request body against the endpoint's schema (service schemas available as #/$defs/<Name>).
import type { Ajv, ValidateFunction } from 'ajv';
import { bodySchemaAt, compileShared } from '../../catalogue/validators.js';
import { lifecycleFacts } from '../../catalogue/lifecycle.js';
import type { Parameter } from '../../catalogue/model.js';
import { GatewayError } from '../errors.js';
import type { Route } from '../routes/route-table.js';

interface BodyCheck {
  validate: ValidateFunction;
  /** Body fields the catalogue knows at other releases, not at this one. */
  elsewhere: ReadonlyMap<string, Parameter>;
}

/** The route's body check at its release (its body: schema, or the object of its body fields alive there), made once. */
function compile(ajv: Ajv, route: Route): BodyCheck | null {
  if (route.cache.has('body')) return route.cache.get('body') as BodyCheck | null;
  const at = bodySchemaAt(route.view, route.endpoint);
  const check = at && { validate: compileShared(ajv, at.schema), elsewhere: at.elsewhere };
  route.cache.set('body', check);
  return check;
}

/** Whether the route takes a JSON body at its release (a body: schema or body fields). */
export function takesJsonBody(route: Route): boolean {
  return route.endpoint.endpoint.body !== undefined || route.endpoint.knownBodyParameters.length > 0;
}

/** "/inputs/0/input/txHash" → "inputs[0].input.txHash" */
function fieldName(pointer: string): string {
  return pointer.split('/').slice(1).reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

export function checkBody(ajv: Ajv, route: Route, body: unknown): void {
  const check = compile(ajv, route);
  if (!check) return;
  if (check.elsewhere.size && body && typeof body === 'object' && !Array.isArray(body)) {
    // A field of another release: refused naming when it came or went, as a query parameter is.
    for (const name of Object.keys(body)) {
      const p = check.elsewhere.get(name);
      if (p) throw new GatewayError('notAllowed', `Field '${name}' is not part of ${route.endpoint.endpoint.key}${route.view.release ? ` at ${route.view.release.id}` : ''}: ${lifecycleFacts(p, route.view.service.releases, route.view.at)}.`);
    }
  }
  const validate = check.validate;
  if (validate(body)) return;
  const e = validate.errors![0];
  let field = fieldName(e.instancePath);
  let reason = e.message ?? 'is invalid';
  if (e.keyword === 'required') {
    const missing = (e.params as { missingProperty: string }).missingProperty;
    field = field ? `${field}.${missing}` : missing;
    reason = 'is required';
  } else if (e.keyword === 'additionalProperties') {
    reason = `has unknown field "${(e.params as { additionalProperty: string }).additionalProperty}"`;
  } else if (e.keyword === 'enum') {
    reason = `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
  }
  throw new GatewayError('invalid', field ? `field '${field}' ${reason}` : `request body ${reason}`);
}
