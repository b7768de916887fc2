// Which request steps work on JSON: a step names a JSON body field when its name (or the first part
// of its path) is an `in: body` parameter of the operation at the release before the change or of
// the one it lands on; over a websocket-API frame, whose params are JSON, paths and the list and
// integers steps. Everything else is a query or form parameter, composed into segments as before.
import { existsAt } from '../lifecycle.js';
import type { Endpoint } from '../model.js';
import { isPath, rootOf } from './json-path.js';
import type { JsonStep } from './plan.js';
import type { JsonRequestStep, RequestStep } from './types.js';
import { operationKind } from './ws-operations.js';

/** The body fields of an operation at a release position. */
export function bodyFields(ep: Endpoint | undefined, r: number): Set<string> {
  return new Set(ep?.parameters.filter((p) => p.in === 'body' && existsAt(p.span, r)).map((p) => p.name) ?? []);
}

/** Whether a name is a JSON field for a change of `operation` whose body fields (before and after it) are `fields`. */
export function jsonName(operation: string, fields: ReadonlySet<string>): (name: string) => boolean {
  if (operationKind(operation) === 'ws-api') return isPath;
  return (name) => fields.has(rootOf(name));
}

type Released = Exclude<JsonStep, { kind: 'guard' }>;
type Split = Extract<RequestStep, { kind: 'rename' | 'set' | 'default' | 'map' | 'drop' }>;

/** A step cut in two: what it does to query or form parameters, and what to JSON fields (with the release it belongs to). */
export function splitStep(step: JsonRequestStep, isJson: (name: string) => boolean, release: string): { query?: Split; json?: Released } {
  const json = (s: JsonRequestStep): Released => ({ ...s, release });
  switch (step.kind) {
    case 'list': case 'integers': return { json: json(step) };
    case 'map': return isJson(step.parameter) ? { json: json(step) } : { query: step };
    case 'drop': {
      const [j, q] = [step.names.filter(isJson), step.names.filter((n) => !isJson(n))];
      return { query: q.length ? { ...step, names: q } : undefined, json: j.length ? json({ ...step, names: j }) : undefined };
    }
    case 'rename': case 'set': case 'default': {
      const bag = step.kind === 'rename' ? step.names : step.values;
      const [j, q] = partition(bag, isJson);
      const make = (o: Record<string, never>) => (step.kind === 'rename' ? { ...step, names: o } : { ...step, values: o }) as Split;
      return { query: q ? make(q) : undefined, json: j ? json(make(j)) : undefined };
    }
  }
}

function partition<V>(o: Readonly<Record<string, V>>, isJson: (name: string) => boolean): [Record<string, never> | undefined, Record<string, never> | undefined] {
  const j: Record<string, V> = {};
  const q: Record<string, V> = {};
  for (const [k, v] of Object.entries(o)) (isJson(k) ? j : q)[k] = v;
  const some = (x: Record<string, V>) => (Object.keys(x).length ? (x as Record<string, never>) : undefined);
  return [some(j), some(q)];
}
