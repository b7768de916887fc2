// The one applier of version changes on JSON (data in, data out): a plan's request parts on a JSON
// object (a REST request's JSON body, a websocket-API frame's params) and answer steps on a parsed
// answer (a REST answer, a websocket answer frame's result or error) with its status. Values come as
// exact-json.ts reads them: a value no step touches is the same value, written back with its text.
import { ExactNumber, isJsonObject, scalarText } from '../json-value.js';
import { EACH, get, has, pathOf, put, remove, slotsAt, valuesAt, type PathPart, type Slot } from './json-path.js';
import type { JsonStep, RequestPart } from './plan.js';
import { addedParams, mapParam } from './segment.js';
import { transformNamed, type Params } from './transforms.js';
import type { AnswerStep } from './types.js';

/** A request the steps refuse: `gone` (410: the upstream no longer takes it; name the replacement), else invalid (400). */
export class StepRefusal extends Error {
  constructor(readonly gone: boolean, message: string) {
    super(message);
    this.name = 'StepRefusal';
  }
}

/**
 * Every request part on an object of params (a websocket-API frame's): segments as the query's
 * (constants as text), transforms, and JSON steps. Returns the params sent; throws StepRefusal.
 */
export function applyRequest(params: Record<string, unknown>, parts: readonly RequestPart[]): Record<string, unknown> {
  let out = params;
  for (const part of parts) {
    if (part.kind === 'json') { applyJson(out, part.steps); continue; }
    if (part.kind === 'transform') {
      const map = new Map(Object.entries(out));
      const refused = transformNamed(part.name)!.request!(map as unknown as Params);
      if (refused) throw new StepRefusal(false, refused);
      out = Object.fromEntries(map);
      continue;
    }
    const seg = part.segment;
    const next: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(out)) {
      const { to, mapped } = mapParam(seg, k, scalarText(v));
      if (to !== null) next[to] = mapped ?? v;
    }
    for (const a of addedParams(seg, (name) => name in next)) next[a.name] = a.value;
    out = next;
  }
  return out;
}

/** JSON steps on an object, in place and in order; whether anything changed (else its bytes can go as they came). Throws StepRefusal. */
export function applyJson(root: Record<string, unknown>, steps: readonly JsonStep[]): boolean {
  let changed = false;
  for (const s of steps) if (jsonStep(root, s)) changed = true;
  return changed;
}

const at = (root: unknown, name: string, create = false): Slot[] => slotsAt(root, pathOf(name), create);
/** The slot a path's new name takes beside the old one: renames stay within their object (check.ts). */
const beside = ([c]: Slot, to: string): Slot => [c, pathOf(to).at(-1) as string];
const INTEGER = /^-?[0-9]+$/;

function jsonStep(root: Record<string, unknown>, s: JsonStep): boolean {
  let changed = false;
  switch (s.kind) {
    case 'rename': {
      // All at once, so { a: b, b: a } swaps.
      const moves: [Slot, unknown][] = [];
      for (const [from, to] of Object.entries(s.names)) for (const slot of at(root, from)) if (has(slot)) { moves.push([beside(slot, to), get(slot)]); remove(slot); }
      for (const [slot, v] of moves) put(slot, v);
      return moves.length > 0;
    }
    case 'drop':
      for (const n of s.names) for (const slot of at(root, n)) if (has(slot)) { remove(slot); changed = true; }
      return changed;
    case 'set': case 'default':
      for (const [n, v] of Object.entries(s.values)) {
        for (const slot of at(root, n, true)) if (s.kind === 'set' || !has(slot)) { put(slot, v); changed = true; }
      }
      return changed;
    case 'map':
      for (const slot of at(root, s.parameter)) {
        const text = has(slot) ? scalarText(get(slot)) : undefined;
        if (text !== undefined && Object.hasOwn(s.values, text)) { put(slot, s.values[text]); changed = true; }
      }
      return (s.to !== s.parameter && jsonStep(root, { kind: 'rename', names: { [s.parameter]: s.to }, release: s.release, at: s.at })) || changed;
    case 'list':
      for (const [from, to] of Object.entries(s.names)) for (const slot of at(root, from)) if (has(slot)) { joinList(slot, beside(slot, to)); changed = true; }
      return changed;
    case 'integers':
      for (const n of s.names) for (const slot of at(root, n)) if (has(slot) && integer(slot, n, s.release)) changed = true;
      return changed;
    case 'guard':
      for (const v of valuesAt(root, pathOf(s.field))) {
        const text = scalarText(v);
        if (s.values === null && v !== undefined) throw new StepRefusal(true, `${s.field}: ${s.message}`); // refused whatever its value
        if (text !== undefined && s.values?.includes(text)) throw new StepRefusal(true, `${s.field}=${text}: ${s.message}`);
      }
      return false;
  }
}

/** `assignee: x` → `assignees: [x]`; a list sent too gets x unless it holds it already (null sends nothing). */
function joinList(from: Slot, to: Slot): void {
  const v = get(from);
  remove(from);
  if (v === null || v === undefined) return;
  const list = has(to) ? get(to) : undefined;
  if (!Array.isArray(list)) { put(to, [v]); return; }
  const text = scalarText(v);
  if (!list.some((x) => x === v || (text !== undefined && scalarText(x) === text))) list.push(v);
}

/** A numeric string becomes the integer it spells; another string or a fraction is refused (410). Whether it changed. */
function integer(slot: Slot, name: string, release: string): boolean {
  const v = get(slot);
  if (v === null || (typeof v === 'number' && Number.isInteger(v)) || (v instanceof ExactNumber && INTEGER.test(v.text))) return false;
  if (typeof v === 'string' && INTEGER.test(v)) {
    const text = v.replace(/^(-?)0+(?=[0-9])/, '$1');
    const n = Number(text);
    put(slot, String(n) === text ? n : new ExactNumber(text));
    return true;
  }
  if (typeof v !== 'string' && typeof v !== 'number' && !(v instanceof ExactNumber)) return false; // not a number at all: the validator's to refuse
  throw new StepRefusal(true, `${name}=${JSON.stringify(scalarText(v))} is not an integer: the upstream takes integers only since ${release}`);
}

/** An answer that is not JSON: the status steps still apply, the others have nothing to work on. */
export const NOT_JSON = Symbol('not JSON');

/** The answer steps, in order (the newest change's first), on an answer and its status. */
export function applyAnswer(steps: readonly AnswerStep[], status: number, answer: unknown): { status: number; data: unknown } {
  let data = answer;
  for (const s of steps) {
    if (s.kind === 'status') { status = s.codes[String(status)] ?? status; continue; }
    if (status >= 400) {
      if (s.kind === 'errors' && isJsonObject(data) && 'code' in data) {
        const code = String(data.code);
        if (Object.hasOwn(s.codes, code)) data.code = s.codes[code];
      }
      continue;
    }
    if (data === NOT_JSON) continue;
    switch (s.kind) {
      case 'rename': eachObject(data, s.in, (o) => { for (const [from, to] of Object.entries(s.names)) if (from in o) { o[to] = o[from]; delete o[from]; } }); break;
      case 'restore': eachObject(data, s.in, (o) => { for (const [k, v] of Object.entries(s.values)) if (!(k in o)) o[k] = v; }); break;
      case 'copy': eachObject(data, s.in, (o) => copyFields(o, s.fields)); break;
      case 'unwrap': if (Array.isArray(data) && data.length === 1) data = data[0]; break;
      case 'transform': data = transformNamed(s.name)!.answer!(data); break;
      case 'lost': case 'errors': break;
    }
  }
  return { status, data };
}

/** The objects a step works on: those at `in` (from the answer object, or each object of a list answer, unless it starts with []). */
function eachObject(data: unknown, inPath: string | undefined, f: (o: Record<string, unknown>) => void): void {
  const parts: readonly PathPart[] = inPath === undefined ? [] : pathOf(inPath);
  const roots = Array.isArray(data) && parts[0] !== EACH ? data : [data];
  for (const r of roots) for (const o of valuesAt(r, parts)) if (isJsonObject(o)) f(o);
}

function copyFields(o: Record<string, unknown>, fields: Readonly<Record<string, string>>): void {
  for (const [to, from] of Object.entries(fields)) {
    if (Object.hasOwn(o, to)) continue;
    const found = valuesAt(o, pathOf(from));
    if (found.length) o[to] = copyOf(found[0]);
  }
}

/** A copy of a JSON value, so a later step on one place does not change the other (numbers kept as they are). */
function copyOf(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(copyOf);
  if (isJsonObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, copyOf(x)]));
  return v;
}
