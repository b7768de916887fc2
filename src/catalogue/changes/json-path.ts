// Paths into JSON as changes.yaml writes them: `a` (a field), `a.b` (a field of a field), `list[]`
// (each item of a list), `list[].x`, `assignees[0]` (one item), `[]` (each item of a list answer).
// Parsed once per text; visited in place, nothing copied.
import { isJsonObject } from '../json-value.js';

/** A field name, an item index, or EACH (every item of a list). */
export type PathPart = string | number | typeof EACH;
export const EACH = null;

const PART = /^(?:\.?([^.[\]]+)|\[\]|\[(\d+)\])/;
const parsed = new Map<string, readonly PathPart[] | string>();

/** The parts of a path, or why it is not one. */
export function parsePath(text: string): readonly PathPart[] | string {
  let hit = parsed.get(text);
  if (hit === undefined) parsed.set(text, (hit = parse(text)));
  return hit;
}

function parse(text: string): readonly PathPart[] | string {
  const out: PathPart[] = [];
  let rest = text;
  while (rest) {
    const m = PART.exec(rest);
    // A field follows a dot, except the first; an item follows anything.
    if (!m || (m[1] !== undefined && out.length > 0 && rest[0] !== '.') || (out.length === 0 && rest[0] === '.')) {
      return `"${text}" is not a path (a field, a.b, list[], list[].x, list[0])`;
    }
    out.push(m[1] !== undefined ? m[1] : m[2] !== undefined ? Number(m[2]) : EACH);
    rest = rest.slice(m[0].length);
  }
  return out.length ? out : `"${text}" is not a path: it is empty`;
}

/** The parts of a path the loader has checked (a bad one names nothing). */
export function pathOf(text: string): readonly PathPart[] {
  const p = parsePath(text);
  return typeof p === 'string' ? [] : p;
}

/** Whether a name reaches into a value (a.b, list[]) rather than naming a field of the object itself. */
export const isPath = (name: string): boolean => /[.[]/.test(name);

/** The field a path starts from (`assignees` of `assignees[0]`). */
export const rootOf = (name: string): string => /^[^.[]*/.exec(name)![0];

/** The path of the object holding a path's last part ('' for a field of the object itself). */
export const parentOf = (name: string): string => name.replace(/(?:\.?[^.[\]]+|\[\d*\])$/, '');

/** Whether a new name stays in the old one's object (a.b → a.c, or a.b → c: the step renames within an object). */
export const sameObject = (from: string, to: string): boolean => !isPath(to) || parentOf(from) === parentOf(to);

/** The values at a path under `root` (each item where it says []), leaving out what is not there. */
export function valuesAt(root: unknown, parts: readonly PathPart[]): unknown[] {
  let at: unknown[] = [root];
  for (const p of parts) {
    const next: unknown[] = [];
    for (const v of at) {
      if (p === EACH) { if (Array.isArray(v)) next.push(...(v as unknown[])); }
      else if (typeof p === 'number') { if (Array.isArray(v) && p < v.length) next.push(v[p]); }
      else if (isJsonObject(v) && Object.hasOwn(v, p)) next.push(v[p]);
    }
    at = next;
  }
  return at;
}

/** A place a path names: its container and its key there (the key need not exist yet). */
export type Slot = [Record<string, unknown> | unknown[], string | number];

/**
 * Every place the path's last part names. With `create`, objects missing on the way to it are
 * made (fields only: a list is never made up), so `set: { a.b: 1 }` works on a body without `a`.
 */
export function slotsAt(root: unknown, parts: readonly PathPart[], create = false): Slot[] {
  if (!parts.length) return [];
  const last = parts[parts.length - 1];
  const parents = create ? parentsMade(root, parts.slice(0, -1)) : valuesAt(root, parts.slice(0, -1));
  const out: Slot[] = [];
  for (const c of parents) {
    if (Array.isArray(c)) {
      if (last === EACH) for (let i = 0; i < c.length; i++) out.push([c, i]);
      else if (typeof last === 'number' && last < c.length) out.push([c, last]);
    } else if (typeof last === 'string' && isJsonObject(c)) out.push([c, last]);
  }
  return out;
}

function parentsMade(root: unknown, parts: readonly PathPart[]): unknown[] {
  let at: unknown[] = [root];
  for (const p of parts) {
    if (typeof p === 'string') {
      for (const v of at) if (isJsonObject(v) && !Object.hasOwn(v, p)) v[p] = {};
    }
    at = valuesAt(at, [EACH, p]);
  }
  return at;
}

export const has = ([c, k]: Slot): boolean => (Array.isArray(c) ? (k as number) < c.length : Object.hasOwn(c, k));
export const get = ([c, k]: Slot): unknown => (c as Record<string | number, unknown>)[k];
export const put = ([c, k]: Slot, v: unknown): void => { (c as Record<string | number, unknown>)[k] = v; };
/** Removes a field (an item of a list is never removed: the list would shift under the other steps). */
export const remove = ([c, k]: Slot): void => { if (!Array.isArray(c)) delete c[k as string]; };
