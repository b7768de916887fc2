// Checks of the steps that reach into JSON and HTTP (check.ts runs them with the rest): a body step
// names a body field the operation has just before the change, and a path into it what the field's
// schema has; answer fields are named in their object (nested ones reached with `in`); a status is
// an HTTP answer's; a move between templated paths has a value for every parameter of the target's.
import { existsAt } from '../lifecycle.js';
import type { Endpoint } from '../model.js';
import { parseTemplate } from '../path-template.js';
import { EACH, isPath, parsePath, rootOf, sameObject, type PathPart } from './json-path.js';
import type { AnswerStep, JsonRequestStep } from './types.js';
import { operationKind } from './ws-operations.js';

/** Report a problem at a line. */
export type At = (line: { file: string; line: number }, message: string) => void;

/** What a JSON step is checked against: the operation just before the change, and the names known by this step. */
export interface JsonContext {
  ep: Endpoint;
  /** Release position just before the change, and its id. */
  r: number;
  before: string;
  /** Parameters and fields the steps may read by now (a step adds the fields it writes). */
  names: Set<string>;
  isJson: (name: string) => boolean;
  at: At;
}

const VERB: Record<JsonRequestStep['kind'], string> = { rename: 'renames', drop: 'drops', map: 'maps', list: 'lists', integers: 'makes integers of', set: 'sets', default: 'defaults' };

/** One step's JSON names: read ones exist (their path fits the field's schema), written ones are body fields in their object. */
export function checkJsonStep(x: JsonContext, s: JsonRequestStep): void {
  const verb = VERB[s.kind];
  const syntax = (n: string) => { const p = parsePath(n); if (typeof p === 'string') x.at(s.at, `${verb} ${p}`); return typeof p === 'string' ? null : p; };
  const read = (n: string) => {
    const parts = syntax(n);
    if (!parts) return;
    const root = rootOf(n);
    if (!x.isJson(n)) x.at(s.at, `${verb} "${n}": "${root}" is not a body field of ${x.ep.key} at ${x.before} (paths, list and integers reach JSON body fields only)`);
    else if (!x.names.has(root)) x.at(s.at, `${verb} body field "${root}", which ${x.ep.key} does not have at ${x.before}`);
    else { const why = schemaProblem(x.ep, x.r, root, parts.slice(1)); if (why) x.at(s.at, `${verb} "${n}": ${why}`); }
  };
  const write = (from: string | null, n: string) => {
    if (!syntax(n)) return;
    if (from !== null && !sameObject(from, n)) x.at(s.at, `${verb} "${from}" to "${n}": the new name stays in the field's object (a.b → a.c)`);
    if (from === n) x.at(s.at, `touches nothing: ${verb} ${from} to itself`);
    x.names.add(rootOf(n));
  };
  switch (s.kind) {
    case 'rename': case 'list': for (const [from, to] of Object.entries(s.names)) { read(from); write(from, to); } break;
    case 'drop': case 'integers': for (const n of s.names) read(n); break;
    case 'map': read(s.parameter); if (s.to !== s.parameter) write(s.parameter, s.to); break;
    case 'set': case 'default': for (const n of Object.keys(s.values)) write(null, n); break;
  }
}

/** Why a path under a body field does not fit its schema (where the schema says): a field it lacks, a list it is not. */
function schemaProblem(ep: Endpoint, r: number, root: string, parts: readonly PathPart[]): string | undefined {
  let schema = ep.parameters.find((p) => p.name === root && p.in === 'body' && existsAt(p.span, r))?.schema as Record<string, any> | undefined;
  let where = root;
  for (const part of parts) {
    if (!schema || typeof schema !== 'object') return undefined; // nothing more is known: not checked further
    const types: unknown[] = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
    if (part === EACH || typeof part === 'number') {
      if (types.length && !types.includes('array')) return `${where} is not a list (its schema's type is ${types.join(' or ')})`;
      schema = schema.items;
      where += part === EACH ? '[]' : `[${part}]`;
    } else {
      if (types.includes('array') && !types.includes('object')) return `${where} is a list: write ${where}[].${part}`;
      const props = schema.properties as Record<string, unknown> | undefined;
      if (props && !Object.hasOwn(props, part) && !schema.additionalProperties) return `${where} has no field "${part}" (it has ${Object.keys(props).join(', ')})`;
      schema = props?.[part] as Record<string, any> | undefined;
      where += `.${part}`;
    }
  }
  return undefined;
}

/** One answer step: fields named in their object, paths that parse, status steps on HTTP answers only. */
export function checkAnswerStep(operation: string, s: AnswerStep, at: At): void {
  const field = (n: string) => { if (isPath(n)) at(s.at, `answer field "${n}" is a path: name the field in its object and reach the object with in: (in: ${n.replace(/\.?[^.[\]]+$/, '') || '…'})`); };
  switch (s.kind) {
    case 'status':
      if (operationKind(operation) !== 'rest') at(s.at, `${operation}: status steps map HTTP status codes; a websocket answer has none`);
      break;
    case 'copy':
      for (const [to, from] of Object.entries(s.fields)) {
        field(to);
        const p = parsePath(from);
        if (typeof p === 'string') at(s.at, `copies ${to} from ${p}`);
        if (from === to) at(s.at, `touches nothing: copies ${to} from itself`);
      }
      break;
    case 'rename': for (const [from, to] of Object.entries(s.names)) { field(from); field(to); } break;
    case 'restore': for (const n of Object.keys(s.values)) field(n); break;
    case 'lost': for (const n of s.names) field(n); break;
    default: break;
  }
}

/** Why a move cannot fill the target's path: a parameter of its template the old operation has no value for. */
export function movePathProblem(ep: Endpoint, to: Endpoint): string | undefined {
  const t = parseTemplate(to.path);
  const from = parseTemplate(ep.path);
  if (typeof t === 'string') return undefined;
  const have = typeof from === 'string' ? [] : from.params;
  const missing = t.params.filter((n) => !have.includes(n));
  return missing.length ? `moves ${ep.key} to ${to.key}, whose path parameter${missing.length > 1 ? 's' : ''} ${missing.map((n) => `{${n}}`).join(', ')} ${ep.key} has no value for (path parameters are carried across by name)` : undefined;
}
