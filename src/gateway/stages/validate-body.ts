// Check a JSON request body against the endpoint's schema (service schemas available as #/$defs/<Name>).
import type { Ajv, ValidateFunction } from 'ajv';
import { bodySchema, compileShared } from '../../catalogue/validators.js';
import { GatewayError } from '../errors.js';
import type { Route } from '../routes/route-table.js';

function compile(ajv: Ajv, route: Route): ValidateFunction | null {
  if (route.cache.has('body')) return route.cache.get('body') as ValidateFunction | null;
  const schema = bodySchema(route.view.service, route.endpoint.endpoint);
  const fn = schema ? compileShared(ajv, schema) : null;
  route.cache.set('body', fn);
  return fn;
}

/** "/inputs/0/input/txHash" → "inputs[0].input.txHash" */
function fieldName(pointer: string): string {
  return pointer.split('/').slice(1).reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

export function checkBody(ajv: Ajv, route: Route, body: unknown): void {
  const validate = compile(ajv, route);
  if (!validate || validate(body)) return;
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
