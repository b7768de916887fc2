// The ajv instances and schemas the gateway validates requests with, defined once so the loader
// compiles at load time exactly what the runtime compiles per request: a schema that would answer
// 500 on its first request is a file:line problem at lint and start-up instead.
// ajv is loaded on first use (createRequire): a start-up served from the JSON cache never loads it.
import { createRequire } from 'node:module';
import type { Ajv, Options, ValidateFunction } from 'ajv';
import type { Endpoint, Parameter, Service } from './model.js';
import type { EndpointAt, ReleaseView } from './resolve.js';

/** Query, form and header values arrive as text: coerce them to the declared types. */
export const PARAM_AJV_OPTIONS: Readonly<Options> = { coerceTypes: true, allErrors: false, strict: false, allowUnionTypes: true };
/** JSON bodies keep their types. */
export const BODY_AJV_OPTIONS: Readonly<Options> = { allErrors: false, strict: false, allowUnionTypes: true };

const require = createRequire(import.meta.url);

function newAjv(options: Options): Ajv {
  const { Ajv: AjvClass } = require('ajv') as typeof import('ajv');
  return new AjvClass(options);
}

/** The ajv that checks parameters (query string, form body, headers). */
export function createParamAjv(extra: Options = {}): Ajv {
  return newAjv({ ...PARAM_AJV_OPTIONS, ...extra });
}

/** The ajv that checks JSON request bodies. */
export function createBodyAjv(extra: Options = {}): Ajv {
  return newAjv({ ...BODY_AJV_OPTIONS, ...extra });
}

let processParam: Ajv | undefined;
let processBody: Ajv | undefined;

/**
 * The parameter and body ajv of this process, made on first use: every gateway state (each reload,
 * each gateway of a process) compiles with the same options, so a schema compiled once serves them
 * all, and a reload of an unchanged catalogue compiles nothing again.
 */
export const processAjv = {
  get param(): Ajv { return (processParam ??= createParamAjv()); },
  get body(): Ajv { return (processBody ??= createBodyAjv()); },
};

const compiled = new WeakMap<Ajv, Map<string, ValidateFunction>>();

/**
 * Schemas kept compiled per ajv instance. Past it the instance forgets them all (a process reloading
 * catalogues that keep changing must not grow without end); functions already handed out stay valid.
 */
const MAX_COMPILED = 20_000;

/**
 * Compile a schema once per ajv instance and schema text: the releases of a multi-release gateway
 * mostly check an endpoint with the same schema, and each compiled function is generated code.
 * (ajv's own cache is keyed by the schema object, which every route builds afresh.)
 */
export function compileShared(ajv: Ajv, schema: Record<string, unknown>, max = MAX_COMPILED): ValidateFunction {
  let byText = compiled.get(ajv);
  if (!byText) compiled.set(ajv, (byText = new Map()));
  const text = JSON.stringify(schema);
  let fn = byText.get(text);
  if (fn) return fn;
  if (byText.size >= max) {
    byText.clear();
    ajv.removeSchema(); // ajv keeps every schema object it compiled: forgotten with the texts
  }
  byText.set(text, (fn = ajv.compile(schema)));
  return fn;
}

/**
 * The schema one parameter is checked with, given the values of its named enum alive at the
 * pinned release (the runtime) or every value the enum ever had (the load-time check).
 * A list-valued parameter (type: array) checks each item against the enum.
 */
export function parameterSchema(p: Parameter, enumValues?: readonly string[]): Record<string, unknown> {
  const schema: Record<string, unknown> = { ...p.schema };
  if (p.enum && enumValues) {
    if (schema.type === 'array') schema.items = { ...(schema.items as object), enum: [...enumValues] };
    else schema.enum = [...enumValues];
  }
  return schema;
}

/** The JSON Schema of an endpoint's body with the service's named schemas as #/$defs/<Name>; null without a body. */
export function bodySchema(service: Pick<Service, 'schemas'>, endpoint: Pick<Endpoint, 'body'>): Record<string, unknown> | null {
  const body = endpoint.body;
  if (!body) return null;
  return { ...body, $defs: { ...service.schemas, ...(body.$defs as object | undefined) } };
}

/** An endpoint's JSON body as checked at one release. */
export interface BodyAt {
  /** The JSON Schema a body is checked with (body ajv); #/$defs/<Name> are the service's schemas. */
  schema: Record<string, unknown>;
  /**
   * Body fields the catalogue knows at other releases but not at this one, by name (the entry to
   * quote, as lifecycleFacts words it: "added in X" / "removed in Y"). Empty for a `body:` schema.
   */
  elsewhere: ReadonlyMap<string, Parameter>;
}

/**
 * The JSON body of an endpoint at the view's release: the object composed from its body fields
 * alive there (fields it does not know pass, as at GitHub; a field of another release is for the
 * caller to refuse through `elsewhere`), else its `body:` schema; null when it takes no JSON body.
 */
export function bodySchemaAt(view: Pick<ReleaseView, 'service' | 'enumValues'>, e: Pick<EndpointAt, 'endpoint' | 'bodyParameters' | 'knownBodyParameters'>): BodyAt | null {
  if (!e.knownBodyParameters.length) {
    const schema = bodySchema(view.service, e.endpoint);
    return schema && { schema, elsewhere: new Map() };
  }
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const p of e.bodyParameters) {
    properties[p.name] = schemaAt(view, p);
    if (p.required) required.push(p.name);
  }
  const elsewhere = new Map<string, Parameter>();
  for (const p of e.knownBodyParameters) if (!Object.hasOwn(properties, p.name) && !elsewhere.has(p.name)) elsewhere.set(p.name, p);
  return { schema: fieldsObject(view.service, properties, required), elsewhere };
}

/** An object of named fields whose unknown fields pass, with the service's schemas as $defs. */
export function fieldsObject(service: Pick<Service, 'schemas'>, properties: Record<string, unknown>, required: string[]): Record<string, unknown> {
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: true, $defs: { ...service.schemas } };
}

/**
 * The object schema the path's parameter values (text, coerced as query text is: createParamAjv)
 * are checked with at the view's release, keyed by parameter name; null for a static path.
 */
export function pathSchemaAt(view: Pick<ReleaseView, 'enumValues'>, e: Pick<EndpointAt, 'pathParameters'>): Record<string, unknown> | null {
  if (!e.pathParameters.length) return null;
  const properties: Record<string, unknown> = {};
  for (const p of e.pathParameters) properties[p.name] = schemaAt(view, p);
  return { type: 'object', properties, required: e.pathParameters.map((p) => p.name) };
}

/** parameterSchema with the values of its named enum alive at the view's release. */
function schemaAt(view: Pick<ReleaseView, 'enumValues'>, p: Parameter): Record<string, unknown> {
  return parameterSchema(p, p.enum ? view.enumValues(p.enum).map((v) => v.value) : undefined);
}
