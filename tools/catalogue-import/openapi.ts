// Reading an OpenAPI 3 description into catalogue terms: operations, parameters (with $ref resolved)
// and the JSON Schema fragments the catalogue keeps (parameter schemas, request-body schemas). Used by
// import-openapi.ts.
import { cacheDirFrom } from '../../src/config.js';
import { InputError } from '../../src/input-error.js';
import { checkOperationCount, parseSource, readSourceText, SOURCE_LIMITS, type SourceLimits } from './source-file.js';

export const HTTP_METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;

export interface OpenApiParameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Record<string, any>;
  deprecated?: boolean;
  /** The components/parameters name when the operation refers to the parameter by $ref. */
  ref?: string;
  /** GitHub's `x-multi-segment`: a path parameter whose value may hold `/`. */
  'x-multi-segment'?: boolean;
}

export interface OpenApiOperation {
  method: string; // upper case
  path: string;
  summary?: string;
  description?: string;
  tags: string[];
  /** OpenAPI `deprecated: true`. */
  deprecated: boolean;
  /** What replaces the operation: its `x-replacement`, else an operation its description says to use instead. */
  replacement?: string;
  parameters: OpenApiParameter[];
  /** Security requirement objects of the operation (or the document's default). */
  security: Record<string, string[]>[];
  hasRequestBody: boolean;
  /** The request body's media type and schema ($ref of the body itself resolved), when it has one. */
  requestBody?: { contentType: string; schema?: Record<string, any>; required: boolean };
}

export interface OpenApiDocument {
  file: string;
  /** info.version, when the document gives one. */
  version?: string;
  operations: OpenApiOperation[];
  byKey: Map<string, OpenApiOperation>;
  securitySchemes: Record<string, any>;
  /** info.title */
  title?: string;
  /** servers[].url, in order */
  servers: string[];
  /** components.schemas: what #/components/schemas/<Name> refers to */
  schemas: Record<string, any>;
}

/**
 * Read an OpenAPI 3 document (YAML or JSON) and list its operations with parameters resolved. The
 * file is read within `limits` and the loader's YAML limits (source-file.ts); a document of another
 * shape is refused (InputError), never a crash further on.
 */
export function readOpenApi(file: string, limits: SourceLimits = SOURCE_LIMITS, cacheDir: string | false = cacheDirFrom()): OpenApiDocument {
  const doc = parseSource(file, readSourceText(file, limits), cacheDir) as Record<string, any>;
  if (!isObject(doc) || !isObject(doc.paths)) throw new InputError(`${file}: not an OpenAPI document (no "paths" object)`);
  let count = 0;
  for (const [path, item] of Object.entries<unknown>(doc.paths)) {
    if (!isObject(item)) throw new InputError(`${file}: paths ${JSON.stringify(path)} is not an object`);
    count += HTTP_METHODS.filter((m) => item[m] !== undefined).length;
  }
  checkOperationCount(file, count, limits);
  const resolve = (obj: any): any => {
    let cur = obj;
    for (let hops = 0; cur && typeof cur === 'object' && typeof cur.$ref === 'string'; hops++) {
      if (hops > 20 || !cur.$ref.startsWith('#/')) throw new InputError(`${file}: cannot resolve $ref ${JSON.stringify(cur.$ref)}`);
      cur = cur.$ref.slice(2).split('/').reduce((o: any, k: string) => (isObject(o) && Object.hasOwn(o, k.replaceAll('~1', '/').replaceAll('~0', '~')) ? o[k.replaceAll('~1', '/').replaceAll('~0', '~')] : undefined), doc);
      if (cur === undefined) throw new InputError(`${file}: dangling $ref ${JSON.stringify(obj.$ref)}`);
    }
    return cur;
  };
  const list = (v: unknown, what: string): unknown[] => {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) throw new InputError(`${file}: ${what} is not a list`);
    return v;
  };
  // A parameter given by $ref keeps the component's name (a named enum can be called after it).
  const parameter = (where: string) => (p: any): OpenApiParameter => {
    const m = typeof p?.$ref === 'string' ? /^#\/components\/parameters\/(.+)$/.exec(p.$ref) : null;
    const out = m ? { ...resolve(p), ref: m[1].replaceAll('~1', '/').replaceAll('~0', '~') } : resolve(p);
    if (!isObject(out) || typeof out.name !== 'string' || typeof out.in !== 'string') throw new InputError(`${file}: a parameter of ${where} has no "name" and "in" strings`);
    return out as OpenApiParameter;
  };
  const operations: OpenApiOperation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    const shared = list(item.parameters, `the parameters of ${JSON.stringify(path)}`).map(parameter(JSON.stringify(path)));
    for (const m of HTTP_METHODS) {
      const op = item[m];
      if (!op) continue;
      const where = `${m.toUpperCase()} ${JSON.stringify(path)}`;
      if (!isObject(op)) throw new InputError(`${file}: ${where} is not an object`);
      if (op.tags !== undefined && !(Array.isArray(op.tags) && op.tags.every((t: unknown) => typeof t === 'string'))) throw new InputError(`${file}: the tags of ${where} are not a list of strings`);
      for (const k of ['summary', 'description'] as const) if (op[k] !== undefined && typeof op[k] !== 'string') throw new InputError(`${file}: the ${k} of ${where} is not a string`);
      const own: OpenApiParameter[] = list(op.parameters, `the parameters of ${where}`).map(parameter(where));
      const names = new Set(own.map((p) => `${p.in} ${p.name}`));
      const parameters = [...shared.filter((p: OpenApiParameter) => !names.has(`${p.in} ${p.name}`)), ...own].map((p) => ({
        ...p, schema: p.schema ? resolve(p.schema) : undefined,
      }));
      operations.push({
        method: m.toUpperCase(), path, summary: op.summary, description: op.description, tags: op.tags ?? [],
        deprecated: op.deprecated === true, replacement: replacementOf(op), parameters, security: op.security ?? doc.security ?? [], hasRequestBody: !!op.requestBody,
        requestBody: op.requestBody ? requestBodyOf(resolve(op.requestBody), resolve) : undefined,
      });
    }
  }
  return {
    file, version: typeof doc.info?.version === 'string' ? doc.info.version : undefined, operations, byKey: new Map(operations.map((o) => [`${o.method} ${o.path}`, o])),
    securitySchemes: doc.components?.securitySchemes ?? {},
    title: doc.info?.title, servers: (doc.servers ?? []).map((s: { url: string }) => s.url), schemas: doc.components?.schemas ?? {},
  };
}

const isObject = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `x-replacement`, else "use METHOD /path instead" (or "replaced by METHOD /path") in the summary or description. */
function replacementOf(op: any): string | undefined {
  if (typeof op['x-replacement'] === 'string' && op['x-replacement'].trim()) return op['x-replacement'].trim();
  const text = `${op.summary ?? ''}\n${op.description ?? ''}`;
  const m = /\b(?:use|replaced by|update to)\s+(?:the\s+(?:new\s+)?)?`?(GET|POST|PUT|DELETE|PATCH)\s+(\/[^\s`'",;)]+)/i.exec(text);
  return m ? `${m[1].toUpperCase()} ${m[2].replace(/\.$/, '')}` : undefined;
}

/** The first JSON media type of a request body, else a form, else whatever comes first. */
function requestBodyOf(body: any, resolve: (o: any) => any): OpenApiOperation['requestBody'] {
  const types = Object.keys(body.content ?? {});
  const contentType = types.find((t) => /^application\/(.+\+)?json\b/.test(t)) ?? types.find((t) => t.startsWith('application/x-www-form-urlencoded')) ?? types[0] ?? '';
  const schema = body.content?.[contentType]?.schema;
  return { contentType, schema: schema ? resolve(schema) : undefined, required: !!body.required };
}

/** Keywords of an OpenAPI schema that mean the same in the JSON Schema the gateway's ajv runs. */
const KEPT = new Set([
  'type', 'enum', 'const', 'required', 'minimum', 'maximum', 'multipleOf', 'minLength', 'maxLength', 'pattern',
  'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties', 'description', 'title', 'default',
]);

/** A component name usable in a JSON pointer without escaping. */
const defName = (name: string) => name.replace(/[^A-Za-z0-9_.-]/g, '_');

/** A JSON Schema in the gateway's terms, and the named schemas its `#/$defs/<Name>` refs need. */
export interface SchemaParts {
  root: Record<string, any>;
  defs: Record<string, unknown>;
}

/**
 * A JSON Schema the gateway can compile from an OpenAPI (3.0 or 3.1) one: refs to
 * #/components/schemas/<Name> become #/$defs/<Name> with the named schemas returned in `defs`;
 * `nullable` becomes a "null" type; 3.0's boolean exclusiveMinimum/Maximum become numbers; what
 * ajv would not check (format, example, xml, discriminator, x-…) is left out, so lint has
 * nothing to refuse.
 */
export function schemaParts(schema: Record<string, any>, components: Record<string, any>): SchemaParts {
  const defs: Record<string, unknown> = {};
  const pending: string[] = [];
  const convert = (s: any): any => {
    if (!s || typeof s !== 'object') return s;
    if (typeof s.$ref === 'string') {
      const m = /^#\/components\/schemas\/(.+)$/.exec(s.$ref);
      if (!m) return {};
      const name = m[1].replaceAll('~1', '/').replaceAll('~0', '~');
      if (!(defName(name) in defs) && !pending.includes(name)) pending.push(name);
      return { $ref: `#/$defs/${defName(name)}` };
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s)) if (KEPT.has(k)) out[k] = v;
    if (s.properties) out.properties = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, convert(v)]));
    if (s.items) out.items = convert(s.items);
    if (s.additionalProperties !== undefined) out.additionalProperties = typeof s.additionalProperties === 'object' ? convert(s.additionalProperties) : s.additionalProperties;
    for (const k of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(s[k])) out[k] = s[k].map(convert);
    if (s.not) out.not = convert(s.not);
    for (const [flag, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
      if (typeof s[flag] === 'number') out[flag] = s[flag];
      else if (s[flag] === true && typeof s[bound] === 'number') {
        out[flag] = s[bound];
        delete out[bound];
      }
    }
    if (s.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
    if (s.nullable === true && Array.isArray(out.enum)) out.enum = [...out.enum, null];
    if (out.type === undefined && (out.properties || out.required)) out.type = 'object';
    if (out.type === undefined && out.items) out.type = 'array';
    return out;
  };
  const root = convert(schema);
  while (pending.length) {
    const name = pending.shift()!;
    defs[defName(name)] = {}; // taken before converting, so a schema that refers to itself ends
    defs[defName(name)] = components[name] ? convert(components[name]) : {};
  }
  return { root, defs };
}

/** A request-body JSON Schema (schemaParts) with the named schemas it refers to copied into its own $defs. */
export function bodyJsonSchema(schema: Record<string, any>, components: Record<string, any>): Record<string, unknown> {
  const { root, defs } = schemaParts(schema, components);
  return Object.keys(defs).length ? { ...root, $defs: defs } : root;
}

/**
 * The catalogue's security scheme of an operation: SIGNED when it takes a `signature` parameter,
 * API_KEY when it requires an apiKey scheme (or its summary says USER_STREAM/MARKET_DATA with a key),
 * else NONE.
 */
export function operationSecurity(op: OpenApiOperation, schemes: Record<string, any> = {}): 'NONE' | 'API_KEY' | 'SIGNED' {
  if (op.parameters.some((p) => p.name === 'signature')) return 'SIGNED';
  const requiresKey = op.security.some((req) => Object.keys(req).some((k) => !schemes[k] || schemes[k].type === 'apiKey'));
  if (requiresKey) return 'API_KEY';
  if (/\((USER_DATA|TRADE|MARGIN)\)/.test(op.summary ?? '')) return 'SIGNED';
  return 'NONE';
}

/**
 * A catalogue parameter schema from an OpenAPI one. Values arrive as query-string text that the
 * gateway coerces, so only type (string/integer/number/boolean), enum, minimum/maximum,
 * min/maxLength and a string's pattern are kept; arrays become strings (they travel as "A,B" or JSON array text).
 */
export function catalogueSchema(s: Record<string, any> | undefined): Record<string, unknown> {
  if (!s) return { type: 'string' };
  const out: Record<string, unknown> = {};
  const type = s.type === 'array' || s.type === 'object' || !s.type ? 'string' : s.type;
  out.type = type;
  if (Array.isArray(s.enum) && type !== 'boolean') out.enum = s.enum.map((v: unknown) => (type === 'string' ? String(v) : v));
  for (const k of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength']) {
    if (typeof s[k] === 'number') out[k] = s[k];
  }
  if (typeof s.pattern === 'string' && type === 'string') out.pattern = s.pattern;
  return out;
}

/** A file-name slug for a tag: "Sub-Account" → "sub-account", "Simple Earn" → "simple-earn". */
export function slug(tag: string): string {
  return tag.trim().toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'default';
}
