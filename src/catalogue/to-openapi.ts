// OpenAPI 3.1 description of what the gateway serves at the pinned release(s), derived from the
// catalogue alone (the runtime never reads anything else). Written so that Redocly's recommended
// ruleset and swagger-parser accept it: servers, an explicit `security: []` on public operations,
// enums of array parameters on `items`, and every answer the gateway itself can give, in the
// service's own error envelope with the service's own codes.
import { errorBody, errorSchema } from './envelope.js';
import { weightAt } from './weight-at.js';
import type { Endpoint, Parameter, Release, Service } from './model.js';
import { parseTemplate, shapeOf, type PathTemplate } from './path-template.js';
import { REASONS, type Reason } from './reasons.js';
import type { EndpointAt, ReleaseView } from './resolve.js';
import { bodySchemaAt } from './validators.js';

export interface OpenApiOptions {
  /** Where clients reach the gateway; default: the document's own origin ("/"). */
  servers?: { url: string; description?: string }[];
}

type Json = Record<string, unknown>;

/** Security scheme names in components.securitySchemes: one per catalogue scheme that needs a credential. */
const SCHEME_NAME = { API_KEY: 'apiKey', SIGNED: 'signed' } as const;

export function toOpenApi(views: ReleaseView[], opts: OpenApiOptions = {}): Json {
  const paths: Record<string, Json> = {};
  const tags = new Map<string, string>();
  const shared: Json = {};
  // OpenAPI allows one spelling of a templated path: operations on the same shape share the first one's names.
  const spelled = new Map<string, string>();
  // The services' named schemas, and the $defs of bodies that bring their own, become the components.
  const defs: Json = Object.assign({}, ...views.map((v) => v.service.schemas));
  for (const view of views) {
    for (const e of view.served) {
      const ep = e.endpoint;
      tags.set(ep.module, `${view.service.title}: ${ep.module} endpoints`);
      const path = spelled.get(shapeOf(ep.path)) ?? ep.path;
      spelled.set(shapeOf(ep.path), path);
      (paths[path] ??= {})[ep.method.toLowerCase()] = operation(view, e, { shared, defs }, path);
    }
  }
  const schemas: Json = Object.assign({}, defs, ...views.map(envelopeSchema));
  return refs({
    openapi: '3.1.0',
    info: {
      title: views.map((v) => v.service.title).join(' + '),
      version: views.map((v) => v.release?.id).filter(Boolean).join(', ') || 'current',
      description: views.map(describeView).join('\n\n'),
    },
    servers: opts.servers ?? [{ url: '/', description: 'this gateway (same origin as this document)' }],
    tags: [...tags].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, description]) => ({ name, description })),
    paths,
    components: { schemas, responses: shared, ...securitySchemes(views) },
  });
}

function describeView(v: ReleaseView): string {
  const at = v.release ? ` at release ${v.release.id} (${v.release.date})` : '';
  return `**${v.service.title}**${at}: ${v.served.length} endpoints.${v.service.description ? ` ${v.service.description}` : ''}`;
}

/** operationId from method and path, e.g. getApiV3Klines: unique because (method, path) is. */
export function operationId(ep: Endpoint): string {
  return `${ep.method.toLowerCase()}${ep.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`;
}

function operation(view: ReleaseView, e: EndpointAt, { shared, defs }: { shared: Json; defs: Json }, path: string): Json {
  const ep = e.endpoint;
  const rename = pathNames(ep.path, path);
  const op: Json = {
    operationId: operationId(ep),
    tags: [ep.module],
    summary: ep.summary ?? ep.key,
    parameters: [...e.pathParameters.map((p) => ({ ...parameter(view, p), name: rename(p.name) })), ...e.parameters.filter((p) => p.in !== 'path' && p.in !== 'body').map((p) => parameter(view, p))],
    // Public operations say so explicitly: without it they would inherit nothing, which linters
    // cannot tell apart from a forgotten requirement.
    security: e.security === 'NONE' ? [] : [{ [SCHEME_NAME[e.security]]: [] }],
    responses: responses(view, e, shared),
  };
  const body = requestBody(view, e, defs);
  if (body) op.requestBody = body;
  const weight = weightAt(ep, view.at);
  if (weight) {
    // The request weight the upstream counted at this release, shown on the docs page and kept machine-readable.
    op['x-weight'] = weight;
    op.description = `Request weight: ${weightText(weight)}.`;
  }
  if (e.status === 'deprecated') Object.assign(op, { deprecated: true, ...lifecycleExtensions(view.service.releases, ep) });
  return op;
}

/** "5", or "limit ≤ 100: 5; ≤ 500: 25; …; otherwise 1", per IP or UID. */
export function weightText(w: NonNullable<Endpoint['weight']>): string {
  const rules = (w.rules ?? []).map((r) => {
    if (r.weight !== undefined) return `${r.weight} with ${r.parameter}${r.measure === 'true' ? '=true' : ''}`;
    const steps = (r.steps ?? []).map((st) => `${st.upTo !== undefined ? `≤ ${st.upTo}` : 'more'}: ${st.perItem !== undefined ? `${st.perItem} per item` : st.weight}`);
    return `${r.parameter}${r.measure === 'items' ? ' (items)' : ''} ${steps.join(', ')}`;
  });
  const parts = [...(w.value !== undefined ? [String(w.value)] : []), ...rules, ...(w.otherwise !== undefined ? [`otherwise ${w.otherwise}`] : [])];
  return `${parts.join('; ')} (per ${w.per})`;
}

/** The deprecating release, the successor and the sunset (the release that removes it), as x- fields. */
function lifecycleExtensions(releases: Release[], ep: Endpoint): Json {
  const out: Json = {};
  if (ep.span.deprecated !== null) out['x-deprecated-in'] = releaseRef(releases[ep.span.deprecated]);
  if (ep.replacement) out['x-successor'] = ep.replacement;
  if (ep.span.removed !== null) out['x-sunset'] = releaseRef(releases[ep.span.removed]);
  return out;
}

const releaseRef = (r: Release) => ({ release: r.id, date: r.date });

/**
 * A `body:` schema's own $defs moved into `defs` (the components), and the body without them: a
 * name already taken by a different schema gets a suffix, and the references follow it.
 */
function hoisted(body: Json, defs: Json): Json {
  const { $defs: own, ...rest } = body as { $defs?: Json };
  if (!own) return body;
  const renamed = new Map<string, string>();
  for (const [name, def] of Object.entries(own)) {
    let id = name;
    for (let n = 2; defs[id] !== undefined && JSON.stringify(defs[id]) !== JSON.stringify(def); n++) id = `${name}-${n}`;
    renamed.set(name, id);
    defs[id] = def;
  }
  const follow = (x: unknown): Json => JSON.parse(JSON.stringify(x).replace(/"#\/\$defs\/([^"]+)"/g, (m, name: string) => (renamed.has(name) ? `"#/$defs/${renamed.get(name)}"` : m)));
  for (const id of renamed.values()) defs[id] = follow(defs[id]);
  return follow(rest);
}

/** Each {name} of `own` as the same segment of `spelled` names it (the two paths have one shape). */
function pathNames(own: string, spelled: string): (name: string) => string {
  if (own === spelled) return (name) => name;
  const [a, b] = [parseTemplate(own), parseTemplate(spelled)] as PathTemplate[];
  return (name) => b.params[a.params.indexOf(name)] ?? name;
}

/** A `body:` schema as written, or the object of the body fields served at the release (deprecated ones marked). */
function requestBody(view: ReleaseView, e: EndpointAt, defs: Json): Json | null {
  if (e.endpoint.body) return { required: true, content: { 'application/json': { schema: hoisted(e.endpoint.body, defs) } } };
  if (!e.bodyParameters.length) return null;
  // The service's schemas are the document's components (refs() points there), not a copy in each body.
  const { $defs, ...schema } = bodySchemaAt(view, e)!.schema;
  const properties = schema.properties as Record<string, Json>;
  for (const p of e.bodyParameters) {
    if (p.description) properties[p.name] = { ...properties[p.name], description: p.description };
    if (view.status(p) === 'deprecated') properties[p.name] = { ...properties[p.name], deprecated: true };
  }
  return { required: schema.required !== undefined, content: { 'application/json': { schema } } };
}

function parameter(view: ReleaseView, p: Parameter): Json {
  const schema = { ...p.schema } as Json;
  if (p.enum) {
    const values = view.enumValues(p.enum).map((v) => v.value);
    // A list parameter takes several enum values: the enum describes each item, not the list.
    const isArray = schema.type === 'array' || (Array.isArray(schema.type) && schema.type.includes('array'));
    if (isArray) schema.items = { ...(schema.items as Json | undefined), enum: values };
    else schema.enum = values;
  }
  const out: Json = { name: p.name, in: p.in, required: p.required, schema };
  if (p.multiSegment) out['x-multi-segment'] = true; // GitHub's own mark: the value may hold /
  if (p.description) out.description = p.description;
  if (view.status(p) === 'deprecated') out.deprecated = true;
  return out;
}

// ---- responses --------------------------------------------------------------------------------

/** When a gateway refusal can happen to an operation (reasons not listed cannot). */
const APPLIES: Partial<Record<Reason, (e: EndpointAt) => boolean>> = {
  notFound: () => true, // another release picked with X-Gateway-Release or /@<id>/ may not serve it
  gone: () => true,
  malformed: () => true,
  duplicate: () => true,
  missing: (e) => e.parameters.some((p) => p.required) || !!e.endpoint.body || e.bodyParameters.some((p) => p.required),
  notAllowed: () => true,
  combination: (e) => e.endpoint.constraints.length > 0,
  invalid: () => true,
  builder: (e) => !!e.endpoint.builder,
  unauthorized: (e) => e.security !== 'NONE',
  forbidden: (e) => e.security !== 'NONE',
  crossSite: () => true,
  requestTimeout: () => true,
  tooLarge: () => true,
  unsupportedMedia: (e) => !!e.endpoint.body || e.bodyParameters.length > 0,
  unknown: () => true,
  upstream: (e) => !e.endpoint.builder,
  overloaded: () => true,
  timeout: () => true,
};

/**
 * 200, one answer per status the gateway itself may give (each a shared component, so 380
 * operations do not repeat the same examples), and the upstream's own errors as `default`.
 */
function responses(view: ReleaseView, e: EndpointAt, shared: Json): Json {
  const out: Json = {
    '200': {
      description: e.endpoint.builder ? `answer of the ${e.endpoint.builder} builder` : "the upstream's answer, relayed unchanged",
      content: { 'application/json': { schema: { description: 'any JSON value (the catalogue declares no response schema)' } } },
    },
  };
  const byStatus = new Map<number, Reason[]>();
  for (const [reason, applies] of Object.entries(APPLIES) as [Reason, (e: EndpointAt) => boolean][]) {
    if (!applies(e)) continue;
    const status = REASONS[reason].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), reason]);
  }
  const envelope = { $ref: `#/components/schemas/${envelopeName(view.service)}` };
  for (const [status, reasons] of [...byStatus].sort(([a], [b]) => a - b)) {
    const name = `${envelopeName(view.service)}${status}-${reasons.join('-')}`;
    shared[name] ??= {
      description: `refused or failed by the gateway: ${reasons.map((r) => `${REASONS[r].message} (${r})`).join('; ')}`,
      content: { 'application/json': { schema: envelope, examples: examples(view.service, reasons) } },
    };
    out[String(status)] = { $ref: `#/components/responses/${name}` };
  }
  if (!e.endpoint.builder) {
    out.default = { description: "the upstream's own error answer, relayed unchanged", content: { 'application/json': { schema: envelope } } };
  }
  return out;
}

/** One example per reason, with the service's code for it (the code the gateway answers with). */
function examples(service: Service, reasons: Reason[]): Json {
  const out: Json = {};
  for (const r of reasons) out[r] = { summary: REASONS[r].message, value: errorBody(service, r, REASONS[r].message) };
  return out;
}

const envelopeName = (s: Service) => `${s.id.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}Error`;

function envelopeSchema(view: ReleaseView): Json {
  const s = view.service;
  const schema = errorSchema(s);
  return { [envelopeName(s)]: { description: `error answer of ${s.title}`, ...schema } };
}

function securitySchemes(views: ReleaseView[]): Json {
  const out: Json = {};
  for (const v of views) {
    const header = v.service.apiKeyHeader;
    if (!header) continue;
    const schemes = new Set(v.served.map((e) => e.security));
    if (schemes.has('API_KEY')) out[SCHEME_NAME.API_KEY] = { type: 'apiKey', in: 'header', name: header, description: `API key in the ${header} header` };
    if (schemes.has('SIGNED')) {
      const signed = v.service.signedParameters.map((p) => p.name).join(', ');
      out[SCHEME_NAME.SIGNED] = {
        type: 'apiKey', in: 'header', name: header,
        description: `API key in the ${header} header, plus the signed query parameters (${signed}) that each signed operation lists`,
      };
    }
  }
  return Object.keys(out).length ? { securitySchemes: out } : {};
}

/** The catalogue writes references to its named schemas as JSON Schema's '#/$defs/X'. */
function refs<T>(doc: T): T {
  return JSON.parse(JSON.stringify(doc).replaceAll('"#/$defs/', '"#/components/schemas/')) as T;
}
