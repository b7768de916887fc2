// Check a request's parameters (query string, form body, header parameters) against the endpoint
// as it is at the pinned release. Schemas are compiled on a route's first request, once per distinct
// schema (releases that take the same parameters share the compiled function).
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { existsAt, lifecycleFacts } from '../../catalogue/lifecycle.js';
import type { Constraint, Parameter } from '../../catalogue/model.js';
import type { ReleaseView } from '../../catalogue/resolve.js';
import { compileShared, parameterSchema } from '../../catalogue/validators.js';
import { GatewayError } from '../errors.js';

/** An endpoint or websocket method as the validator sees it at the pin. */
export interface ParamTarget {
  /** "GET /api/v3/order" or a websocket method name, for messages. */
  label: string;
  view: ReleaseView;
  parameters: Parameter[];
  knownParameters: Parameter[];
  constraints: Constraint[];
  cache: Map<string, unknown>;
}

export interface ParamOptions {
  /** Reject parameters the catalogue does not know at all. */
  strict: boolean;
  /** Parameters that need not be sent (the gateway adds them, e.g. when it signs). */
  supplied?: ReadonlySet<string>;
}

interface Compiled {
  validate: ValidateFunction;
  /** Header parameters the endpoint knows, by lower-case name (read from the request headers). */
  headerParams: string[];
  /** " at <release>" for messages. */
  release: string;
  /** List parameters (schema type: array) read as JSON array text (["A","B"]) when a value starts with '['. */
  jsonLists: Set<string>;
  /** List parameters whose key may be sent once per item (asset=A&asset=B). */
  repeated: Set<string>;
  /** Every list parameter (JSON or repeated), once. */
  lists: string[];
  byName: Map<string, Parameter>;
  known: Map<string, Parameter[]>;
  /** Required parameters: [key in the values, name for messages]. */
  required: [string, string][];
}

/** The compiled check, kept on the target itself: a property read, not a map lookup, per request. */
const COMPILED = Symbol('compiled parameter check');
type CompiledTarget = ParamTarget & { [COMPILED]?: Compiled };

function compile(ajv: Ajv, t: ParamTarget): Compiled {
  return (t as CompiledTarget)[COMPILED] ?? compileNow(ajv, t);
}

function compileNow(ajv: Ajv, t: ParamTarget): Compiled {
  const cached = t.cache.get('params') as Compiled | undefined;
  if (cached) return ((t as CompiledTarget)[COMPILED] = cached);
  const properties: Record<string, unknown> = {};
  const byName = new Map<string, Parameter>();
  const jsonLists = new Set<string>();
  const repeated = new Set<string>();
  for (const p of t.parameters) {
    byName.set(keyOf(p), p);
    const schema = parameterSchema(p, p.enum ? t.view.enumValues(p.enum).map((v) => v.value) : undefined);
    if (schema.type === 'array') {
      const style = p.style ?? ['json'];
      if (style.includes('json')) jsonLists.add(keyOf(p));
      if (style.includes('repeated')) repeated.add(keyOf(p));
    }
    properties[keyOf(p)] = schema;
  }
  const known = new Map<string, Parameter[]>();
  for (const p of t.knownParameters) known.set(keyOf(p), [...(known.get(keyOf(p)) ?? []), p]);
  const compiled = {
    validate: compileShared(ajv, { type: 'object', properties }), byName, known, jsonLists, repeated,
    lists: [...new Set([...jsonLists, ...repeated])],
    headerParams: t.knownParameters.filter((p) => p.in === 'header').map((p) => p.name.toLowerCase()),
    release: t.view.release ? ` at ${t.view.release.id}` : '',
    required: t.parameters.filter((p) => p.required).map((p): [string, string] => [keyOf(p), p.name]),
  };
  t.cache.set('params', compiled);
  return ((t as CompiledTarget)[COMPILED] = compiled);
}

/**
 * Names of the parameters whose key may appear more than once (style: repeated) at the pin; the
 * request reader refuses any other repeated key (duplicate). Compiled on the route's first request.
 */
export function repeatableParams(ajv: Ajv, t: ParamTarget): ReadonlySet<string> {
  return compile(ajv, t).repeated;
}

/** Header parameters are matched case-insensitively; others by exact name. */
const keyOf = (p: Parameter) => (p.in === 'header' ? p.name.toLowerCase() : p.name);

/**
 * Throws GatewayError (400) naming the parameter, the value and the release facts.
 * `values` holds query/form parameters (coerced to their types in place: callers build it per
 * request and forward the original bytes); `headers` the request headers (lower-case names).
 */
export function checkParams(
  ajv: Ajv, t: ParamTarget, values: Record<string, unknown>, headers: Record<string, string | string[] | undefined>, opts: ParamOptions,
): void {
  const c = compile(ajv, t);
  const release = c.release;
  const data = values;
  for (const name of c.headerParams) {
    const h = headers[name];
    if (h !== undefined) data[name] = Array.isArray(h) ? h[0] : h;
  }
  // Parameters sent that the endpoint does not take at the pin.
  for (const name of Object.keys(data)) {
    if (c.byName.has(name)) continue;
    const lives = c.known.get(name);
    if (lives) {
      const nearest = lives.find((p) => !existsAt(p.span, t.view.at))!;
      throw new GatewayError('notAllowed',
        `Parameter '${nearest.name}' is not part of ${t.label}${release}: ${lifecycleFacts(nearest, t.view.service.releases, t.view.at)}.`);
    }
    if (opts.strict) {
      throw new GatewayError('notAllowed', `Parameter '${name}' is not part of ${t.label}${release} (unknown to the catalogue; strict mode).`);
    }
  }
  for (const [key, name] of c.required) {
    const v = data[key];
    if ((v === undefined || v === '' || v === null) && !opts.supplied?.has(name)) {
      throw new GatewayError('missing', `Mandatory parameter '${name}' was not sent, was empty/null, or malformed (${t.label}${release}).`);
    }
  }
  for (const k of t.constraints) {
    const sent = k.exclusive.filter((n) => data[n] !== undefined && data[n] !== '');
    if (sent.length > 1) {
      throw new GatewayError('combination', `Parameters ${sent.map((n) => `'${n}'`).join(' and ')} cannot be combined in ${t.label}${release}${k.note ? ` (${k.note})` : ''}.`);
    }
    if (k.oneRequired && sent.length === 0) {
      throw new GatewayError('missing', `One of ${k.exclusive.map((n) => `'${n}'`).join(' or ')} must be sent (${t.label}${release})${k.note ? ` (${k.note})` : ''}.`);
    }
  }
  // Lists: each item is checked by the array schema (items, enum); a single plain value is a one-item list.
  for (const name of c.lists) {
    const v = data[name];
    if (typeof v === 'string') data[name] = c.jsonLists.has(name) ? parseList(v) : [v];
  }
  if (!c.validate(data)) throw invalid(t, c, (c.validate.errors ?? [])[0], values, data, release);
}

/** '["A","B"]' → ['A', 'B']; 'A' → ['A']; text that is not a JSON list stays as sent (and fails the schema). */
function parseList(v: string): unknown {
  if (!v.startsWith('[')) return [v];
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

function invalid(t: ParamTarget, c: Compiled, e: ErrorObject | undefined, raw: Record<string, unknown>, data: Record<string, unknown>, release: string): GatewayError {
  const name = e?.instancePath.split('/')[1] ?? '';
  const p = c.byName.get(name);
  const value = raw[name] ?? data[name];
  const shown = typeof value === 'string' ? value : JSON.stringify(value);
  const label = p?.name ?? name;
  if (p?.enum && e?.keyword === 'enum') {
    const item = e.instancePath.split('/')[2];
    const bad = item === undefined ? value : (data[name] as unknown[])[Number(item)];
    const def = t.view.service.enums[p.enum];
    const val = def?.values.find((x) => x.value === String(bad));
    const facts = val ? `${p.enum} value ${val.value} was ${lifecycleFacts(val, t.view.service.releases, t.view.at)}` : `not a ${p.enum} value`;
    const valid = t.view.enumValues(p.enum).map((x) => x.value).join(', ');
    const itemNote = item === undefined ? '' : ` (item '${String(bad)}')`;
    return new GatewayError('invalid', `Invalid value '${shown}'${itemNote} for parameter '${label}' of ${t.label}${release}: ${facts}. Valid values: ${valid}.`);
  }
  return new GatewayError('invalid', `Invalid value '${shown}' for parameter '${label}' of ${t.label}${release}: ${e?.message ?? 'invalid'}.`);
}
