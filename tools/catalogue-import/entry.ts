// The catalogue entry of one OpenAPI operation: summary, security, and its parameters as the
// catalogue writes them: path parameters (one per `{name}` of the template, `multiSegment` from
// GitHub's `x-multi-segment`), query and header parameters, form fields (read with the query string)
// and the top-level fields of an object JSON body as `in: body` parameters, each with its own
// lifecycle; the named schemas their `#/$defs/<Name>` refs need go to service.yaml `schemas:`. A
// JSON body that is not an object with properties stays the entry's `body:` schema.
import { parseTemplate } from '../../src/catalogue/path-template.js';
import { checkNames } from './names.js';
import { bodyJsonSchema, catalogueSchema, operationSecurity, schemaParts, type OpenApiDocument, type OpenApiOperation, type OpenApiParameter } from './openapi.js';

export interface ServiceDefaults {
  signed: Set<string>;
  common: { name: string; pathPrefix?: string }[];
  apiKeyHeader?: string;
}

export function serviceDefaults(s: Record<string, any>): ServiceDefaults {
  return {
    signed: new Set((s.security?.signedParameters ?? []).map((p: { name: string }) => p.name)),
    common: (s.commonParameters ?? []).map((p: { name: string; pathPrefix?: string }) => ({ name: p.name, pathPrefix: p.pathPrefix })),
    apiKeyHeader: s.security?.apiKeyHeader,
  };
}

/** What an entry needs besides itself: notes on what was not imported as written, named schemas for service.yaml. */
export interface EntrySink {
  notes: string[];
  /** `#/$defs/<Name>` → schema, for service.yaml `schemas:` (body fields refer to them). */
  schemas: Record<string, unknown>;
}

const JSON_TYPE = /^application\/(.+\+)?json\b/;

/**
 * The catalogue entry of one operation, or a reason to skip it; refused (InputError) when its path or
 * a parameter name is one the catalogue cannot hold (names.ts).
 */
export function entryOf(
  op: OpenApiOperation, spec: OpenApiDocument, specName: string, defaults: ServiceDefaults, prefix: string, sink: EntrySink,
): Record<string, unknown> | string {
  const { notes } = sink;
  checkNames(specName, op.method, prefix + op.path, []);
  const template = parseTemplate(prefix + op.path);
  if (typeof template === 'string') return template;
  let security = operationSecurity(op, spec.securitySchemes);
  if (security !== 'NONE' && !defaults.apiKeyHeader) {
    notes.push(`the OpenAPI operation needs ${security}, but service.yaml declares no security.apiKeyHeader for the gateway to check: imported as NONE`);
    security = 'NONE';
  }
  const leaveOut = (name: string, where: string) =>
    (security === 'SIGNED' && defaults.signed.has(name)) ||
    defaults.common.some((c) => c.name === name && (!c.pathPrefix || (prefix + op.path).startsWith(c.pathPrefix))) ||
    (where === 'header' && defaults.apiKeyHeader !== undefined && name.toLowerCase() === defaults.apiKeyHeader.toLowerCase());
  const parameters: Record<string, unknown>[] = template.params.map((name) => pathParameter(name, op.parameters.find((p) => p.in === 'path' && p.name === name), notes));
  // One entry per name: the loader refuses two parameters of one name, whatever their `in`.
  const seen = new Set<string>(template.params);
  const add = (name: string, where: 'query' | 'header' | 'body', required: boolean | undefined, description: string | undefined, schema: Record<string, unknown>) => {
    if (leaveOut(name, where)) return;
    if (seen.has(name)) {
      notes.push(`${where} parameter ${name} not imported: the operation already has a parameter of that name`);
      return;
    }
    seen.add(name);
    parameters.push({ name, ...(where === 'query' ? {} : { in: where }), ...(required ? { required: true } : {}), ...(description ? { description: description.trim() } : {}), schema });
  };
  for (const p of op.parameters) {
    if (p.in === 'query' || p.in === 'header') add(p.name, p.in, p.required, p.description, catalogueSchema(p.schema));
    else if (p.in === 'path' && !template.params.includes(p.name)) notes.push(`path parameter ${p.name} not imported: the path has no {${p.name}}`);
    else if (p.in !== 'path') notes.push(`${p.in} parameter ${p.name} not imported (the catalogue knows path, query, header and body)`);
  }
  let body: Record<string, unknown> | undefined;
  const rb = op.requestBody;
  if (rb) {
    if (op.method === 'GET') notes.push('the OpenAPI GET operation has a request body, which a GET request cannot carry: not imported');
    else if (JSON_TYPE.test(rb.contentType) && rb.schema) {
      const { root, defs } = schemaParts(rb.schema, spec.schemas);
      if (!isFieldList(root)) body = Object.keys(defs).length ? { ...root, $defs: defs } : root;
      else {
        Object.assign(sink.schemas, defs);
        for (const [name, schema] of Object.entries<Record<string, unknown>>(root.properties)) {
          const { description, ...rest } = schema;
          add(name, 'body', root.required?.includes(name), typeof description === 'string' ? description : undefined, rest);
        }
      }
    } else if (rb.contentType.startsWith('application/x-www-form-urlencoded') && rb.schema) {
      // Form fields travel with the query string (the gateway reads and checks both as one set).
      const form = bodyJsonSchema(rb.schema, spec.schemas) as { properties?: Record<string, any>; required?: string[] };
      for (const [name, schema] of Object.entries(form.properties ?? {})) add(name, 'query', form.required?.includes(name), schema?.description, catalogueSchema(schema));
    } else notes.push(`request body of type ${rb.contentType || '(none)'} not imported: describe it under body: or parameters:`);
  }
  checkNames(specName, op.method, prefix + op.path, parameters.map((p) => p.name));
  const entry: Record<string, unknown> = { method: op.method, path: prefix + op.path };
  if (op.summary) entry.summary = op.summary.trim();
  entry.source = `openapi ${specName}`;
  if (notes.length) entry.note = notes.join('; ');
  entry.security = security;
  if (parameters.length) entry.parameters = parameters;
  if (body) entry.body = body;
  return entry;
}

/** An object body whose fields can each be a parameter: properties and nothing that ties them together. */
function isFieldList(s: Record<string, any>): s is { properties: Record<string, Record<string, unknown>>; required?: string[] } {
  const ties = ['allOf', 'anyOf', 'oneOf', 'not', 'dependentRequired', 'minProperties', 'maxProperties'];
  return s.type === 'object' && !!s.properties && Object.keys(s.properties).length > 0 && !ties.some((k) => k in s);
}

/** The path parameter `{name}`: required, its schema as query text's, `multiSegment` when its value may hold `/`. */
function pathParameter(name: string, p: OpenApiParameter | undefined, notes: string[]): Record<string, unknown> {
  if (!p) notes.push(`path parameter ${name}: the description does not describe {${name}}; imported as a string`);
  return {
    name, in: 'path', required: true, ...(p?.['x-multi-segment'] === true ? { multiSegment: true } : {}),
    ...(p?.description ? { description: p.description.trim() } : {}), schema: catalogueSchema(p?.schema),
  };
}
