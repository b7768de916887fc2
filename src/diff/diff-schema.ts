// The neutral diff below the item level: a parameter's schema keywords, the request body's
// properties, the exclusive-parameter constraints and the endpoint weight. Like diff.ts, no
// severity or wording here: a keyword that moved is a 'schema-changed' delta with its before and
// after values, and rules.ts decides whether that tightened or loosened anything.
import type { Constraint, Endpoint, Service, Where } from '../catalogue/model.js';
import type { Sides, Surface, SurfaceItem } from './surface.js';
import type { Delta, Subject } from './types.js';

type Schema = Record<string, unknown>;

/**
 * Keywords compared one by one. `enum` is not here: its values are diffed one by one (diff.ts);
 * `$ref` and composition keywords are compared as the schema they resolve to, through `type`.
 */
export const SCHEMA_KEYWORDS = [
  'type', 'format', 'minimum', 'exclusiveMinimum', 'maximum', 'exclusiveMaximum',
  'minLength', 'maxLength', 'minItems', 'maxItems', 'pattern',
] as const;

/** JSON text of a value, or undefined when absent: states for Sides.when must be primitives. */
export function json(v: unknown): string | undefined {
  return v === undefined ? undefined : JSON.stringify(v);
}

/** The keywords of a schema and of its array items ("items.maxLength"), as JSON text. */
export function schemaKeywords(schema: Schema | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!schema) return out;
  for (const k of SCHEMA_KEYWORDS) {
    const v = json(schema[k]);
    if (v !== undefined) out.set(k, v);
  }
  const items = schema.items;
  if (items && typeof items === 'object' && !Array.isArray(items)) {
    for (const [k, v] of schemaKeywords(items as Schema)) out.set(`items.${k}`, v);
  }
  return out;
}

/** One delta per keyword whose value differs between the two schemas. */
export function diffSchema(
  walk: Sides, subject: Subject, name: string, a: Schema | undefined, b: Schema | undefined,
  schemaAt: (s: Surface) => Schema | undefined, extra: Pick<Delta, 'param' | 'at' | 'inBody'>, out: Delta[],
): void {
  const ka = schemaKeywords(a);
  const kb = schemaKeywords(b);
  for (const attr of new Set([...ka.keys(), ...kb.keys()])) {
    const before = ka.get(attr);
    const after = kb.get(attr);
    if (before === after) continue;
    const release = walk.when(subject, (s) => schemaKeywords(schemaAt(s)).get(attr));
    out.push({ kind: 'schema', type: 'schema-changed', subject, parameter: name, attribute: attr, before, after, release, ...extra });
  }
}

/** A request-body property: its schema, whether the body requires it. */
interface BodyProperty {
  schema: Schema;
  required: boolean;
}

const flattened = new WeakMap<object, Map<string, BodyProperty>>();

/**
 * The body schema's properties by dotted path ("order.price", "legs[].side"), with `$ref`s into the
 * service's schemas resolved; nested objects and arrays of objects are followed a few levels deep.
 */
export function bodyProperties(body: Schema | undefined, service: Service): Map<string, BodyProperty> {
  if (!body) return new Map();
  let out = flattened.get(body);
  if (!out) {
    out = new Map();
    walkObject(body, '', service, out, 0);
    flattened.set(body, out);
  }
  return out;
}

const MAX_DEPTH = 4;

function resolveRef(schema: Schema, service: Service, seen = 0): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string' || seen > 8) return schema;
  const m = /^#\/\$defs\/(.+)$/.exec(ref);
  const target = m ? (service.schemas[m[1]] as Schema | undefined) : undefined;
  return target ? resolveRef(target, service, seen + 1) : schema;
}

function walkObject(raw: Schema, prefix: string, service: Service, out: Map<string, BodyProperty>, depth: number): void {
  const schema = resolveRef(raw, service);
  const props = schema.properties as Record<string, Schema> | undefined;
  if (!props || depth > MAX_DEPTH) return;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  for (const [name, sub] of Object.entries(props)) {
    const path = `${prefix}${name}`;
    const resolved = resolveRef(sub, service);
    out.set(path, { schema: resolved, required: required.has(name) });
    walkObject(resolved, `${path}.`, service, out, depth + 1);
    const items = resolved.items;
    if (items && typeof items === 'object' && !Array.isArray(items)) walkObject(items as Schema, `${path}[].`, service, out, depth + 1);
  }
}

const endpointOf = (i: SurfaceItem | undefined): Endpoint | undefined => i?.item as Endpoint | undefined;

/** The request body: added or removed as a whole, else property by property. */
export function diffBody(walk: Sides, key: string, x: SurfaceItem, y: SurfaceItem, out: Delta[]): void {
  const a = endpointOf(x)?.body;
  const b = endpointOf(y)?.body;
  if (json(a) === json(b)) return;
  const { subject } = x;
  const at = y.item.at;
  const bodyAt = (s: Surface) => endpointOf(s.items.get(key))?.body;
  if (!a || !b) {
    const release = walk.when(subject, (s) => bodyAt(s) !== undefined);
    out.push({ kind: 'body', type: a ? 'body-removed' : 'body-added', subject, release, at });
    return;
  }
  const pa = bodyProperties(a, walk.from.view.service);
  const pb = bodyProperties(b, walk.to.view.service);
  const propAt = (s: Surface, path: string) => bodyProperties(bodyAt(s), s.view.service).get(path);
  for (const path of new Set([...pa.keys(), ...pb.keys()])) {
    const px = pa.get(path);
    const py = pb.get(path);
    if (!px || !py) {
      const release = walk.when(subject, (s) => propAt(s, path) !== undefined);
      out.push({ kind: 'body', type: px ? 'body-removed' : 'body-added', subject, parameter: path, release, at, required: (px ?? py)!.required });
      continue;
    }
    if (px.required !== py.required) {
      const release = walk.when(subject, (s) => propAt(s, path)?.required);
      out.push({ kind: 'body', type: py.required ? 'body-became-required' : 'body-became-optional', subject, parameter: path, release, at });
    }
    diffSchema(walk, subject, path, px.schema, py.schema, (s) => propAt(s, path)?.schema, { at, inBody: true }, out);
  }
}

const groupKey = (c: Constraint) => [...c.exclusive].sort().join(', ');
const groupsOf = (i: SurfaceItem | undefined) => new Set(((i?.item as { constraints?: Constraint[] } | undefined)?.constraints ?? []).map(groupKey));

/** Exclusive-parameter groups added or removed (the value names the group's parameters). */
export function diffConstraints(walk: Sides, key: string, x: SurfaceItem, y: SurfaceItem, out: Delta[]): void {
  const a = groupsOf(x);
  const b = groupsOf(y);
  const at: Where = y.item.at;
  for (const g of new Set([...a, ...b])) {
    if (a.has(g) === b.has(g)) continue;
    const release = walk.when(x.subject, (s) => groupsOf(s.items.get(key)).has(g));
    out.push({ kind: 'constraint', type: a.has(g) ? 'removed' : 'added', subject: x.subject, attribute: 'exclusive', value: g, release, at });
  }
}

/** The weight in force at the surface's release (rate-limit cost: fixed or conditional), compared as JSON. */
const weightOf = (i: SurfaceItem | undefined) => {
  if (typeof i?.weight !== 'object') return json(i?.weight);
  // What is counted, not where the catalogue read it: the source is reported beside the change.
  const { source, note, ...counted } = i.weight;
  return json(counted);
};

export function diffWeight(walk: Sides, key: string, x: SurfaceItem, y: SurfaceItem, out: Delta[]): void {
  const before = weightOf(x);
  const after = weightOf(y);
  if (before === after || x.subject.type === 'stream') return;
  const release = walk.when(x.subject, (s) => weightOf(s.items.get(key)));
  out.push({ kind: 'weight', type: 'weight-changed', subject: x.subject, before, after, release, at: y.item.at, source: y.weight?.source });
}
