// Every parameter and body schema compiled as the runtime will (see validators.ts), once the whole
// service is read: a parameter's schema takes its enum's values, a body may name service schemas.
import { bodySchema, fieldsObject, parameterSchema } from '../validators.js';
import type { ServiceBuild } from './context.js';

export function compileSchemas(b: ServiceBuild): void {
  for (const { f, path, p, owner } of b.paramSchemas) {
    // Every value of every release, once: a value removed and added again has two lives.
    const defined = p.enum ? b.svc.enums[p.enum]?.values : undefined;
    const values = defined ? [...new Set(defined.map((v) => v.value))] : undefined;
    // A body field is JSON, checked inside its object where #/$defs/<Name> resolve, as the runtime does (bodySchemaAt).
    const schema = parameterSchema(p, values);
    const problem = p.in === 'body' ? b.schemaCheck.body(fieldsObject(b.svc, { [p.name]: schema }, [])) : b.schemaCheck.parameter(schema);
    if (problem) b.problem(f, [...path, 'schema'], `${owner}: parameter ${p.name}: ${problem}`);
  }
  for (const { f, path, e } of b.bodies) {
    const problem = b.schemaCheck.body(bodySchema(b.svc, e)!);
    if (problem) b.problem(f, [...path, 'body'], `${e.key}: body ${problem}`);
  }
  b.schemaCheck.save();
}
