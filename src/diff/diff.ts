// The neutral diff: compare the surfaces at <from> and <to> and, for each difference, walk the
// releases in between to name the one where it happened. No severity or wording here (rules.ts).
import type { Lifecycle, Parameter, SecurityEntry } from '../catalogue/model.js';
export type { Sides } from './surface.js';
import { diffBody, diffConstraints, diffSchema, diffWeight } from './diff-schema.js';
import { cmp, compareUsers } from './order.js';
import { Walk } from './sides.js';
import { inlineEnum, type Sides, type Surface, type SurfaceItem } from './surface.js';
import type { Delta, DeltaType, EnumUser, Kind, Subject } from './types.js';

/**
 * The keys of a, then those of b that a lacks (a Set union's order). Indexed loops over it, here and
 * below: the diff runs cold, in the interpreter, where a for-of allocates an iterator result per step.
 */
function unionKeys(a: ReadonlyMap<string, unknown>, b: ReadonlyMap<string, unknown>): string[] {
  const out: string[] = [];
  a.forEach((_, k) => out.push(k));
  b.forEach((_, k) => {
    if (!a.has(k)) out.push(k);
  });
  return out;
}

/** Every difference between the two sides' surfaces. */
export function diffWalk(walk: Sides): Delta[] {
  const a = walk.from.items;
  const b = walk.to.items;
  const out: Delta[] = [];
  const users = new Map<string, EnumUser[]>();
  const keys = unionKeys(a, b);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const x = a.get(key);
    const y = b.get(key);
    // The <to> side's spelling: a renamed path parameter shows the operation as it is now.
    const subject = (y ?? x)!.subject;
    const kind = subject.type as Kind;
    if (!x || !y) {
      const release = walk.whenServed(subject);
      const item = (x ?? y)!.item;
      out.push({ kind, type: x ? 'removed' : 'added', subject, release, item, at: item.at, deprecatedFor: x ? deprecatedFor(walk, item, release) : undefined });
      continue;
    }
    if (x.deprecated !== y.deprecated) {
      const release = walk.when(subject, (s) => s.items.get(key)?.deprecated);
      out.push({ kind, type: y.deprecated ? 'deprecated' : 'undeprecated', subject, release, item: y.item, at: y.item.at });
    }
    const securityChanged = x.security !== y.security;
    if (securityChanged) {
      const release = walk.when(subject, (s) => s.items.get(key)?.security);
      out.push({ kind: 'security', type: 'security-changed', subject, release, before: x.security, after: y.security, at: y.item.at, source: securitySource(y) });
    }
    if (x.parameters && y.parameters) diffParameters(walk, key, x, y, securityChanged, users, out);
    if (x.item !== y.item) {
      // Body and constraints belong to one entry of the item: they change only where one entry of
      // the same key ends and another begins (or between two catalogues).
      diffBody(walk, key, x, y, out);
      diffConstraints(walk, key, x, y, out);
    }
    // A weight also changes within one entry, where its list moves on to the next weight.
    if (x.weight !== y.weight) diffWeight(walk, key, x, y, out);
    if (subject.type === 'stream') addPlaceholderUsers(walk, subject.id, users);
  }
  for (const [name, list] of [...users].sort(([p], [q]) => cmp(p, q))) diffEnum(walk, name, list.sort(compareUsers), out);
  return out;
}

function addUser(users: Map<string, EnumUser[]>, enumName: string, user: EnumUser): void {
  users.set(enumName, [...(users.get(enumName) ?? []), user]);
}

function diffParameters(
  walk: Sides, key: string, x: SurfaceItem, y: SurfaceItem, securityChanged: boolean, users: Map<string, EnumUser[]>, out: Delta[],
): void {
  const { subject } = y;
  const names = unionKeys(x.parameters!, y.parameters!);
  for (let i = 0; i < names.length; i++) {
    const k = names[i];
    const px = x.parameters!.get(k);
    const py = y.parameters!.get(k);
    const paramAt = (s: Surface): Parameter | undefined => s.items.get(key)?.parameters?.get(k);
    if (!px || !py) {
      const p = (px ?? py)!;
      // Signed parameters come and go with the security scheme: the security change reports them.
      if (securityChanged && (px ? x : y).signed?.has(p)) continue;
      const release = walk.when(subject, (s) => paramAt(s) !== undefined);
      out.push({ ...own(p), type: lifeType(p, px ? 'removed' : 'added'), release, required: p.required });
      continue;
    }
    const name = py.name;
    if (px.name !== name) {
      const release = walk.when(subject, (s) => paramAt(s)?.name);
      out.push({ ...own(py), type: 'renamed', release, before: px.name, after: name });
    }
    // A signing parameter accepted (optional) on the laxer side: the security change reports it too.
    const signing = securityChanged && (x.signed?.has(px) || y.signed?.has(py));
    if (px.required !== py.required && !signing) {
      const release = walk.when(subject, (s) => paramAt(s)?.required);
      out.push({ ...own(py), type: lifeType(py, py.required ? 'became-required' : 'became-optional'), release });
    }
    if (px !== py) diffSchema(walk, subject, name, px.schema, py.schema, (s) => paramAt(s)?.schema, { param: py, at: py.at, inBody: py.in === 'body' || undefined }, out);
    const dx = walk.from.status(px) === 'deprecated';
    const dy = walk.to.status(py) === 'deprecated';
    if (dx !== dy) {
      const release = walk.when(subject, (s) => {
        const p = paramAt(s);
        return p !== undefined && s.status(p) === 'deprecated';
      });
      out.push({ ...own(py), type: dy ? 'deprecated' : 'undeprecated', release });
    }
    if (px.enum && px.enum === py.enum) {
      addUser(users, px.enum, { [subject.type === 'endpoint' ? 'endpoint' : 'wsMethod']: subject.id, name });
    }
    // One entry at both ends has one schema: nothing inline to compare.
    if (px !== py) diffInlineValues(walk, subject, name, px, py, paramAt, out);
  }

  /** The delta's fields naming the parameter: a JSON body field is reported as a body property. */
  function own(p: Parameter): Pick<Delta, 'kind' | 'subject' | 'parameter' | 'item' | 'param' | 'at'> {
    return { kind: p.in === 'body' ? 'body' : 'parameter', subject, parameter: p.name, item: p, param: p, at: p.at };
  }
}

/** The body kind's name for a lifecycle event of a JSON body field. */
function lifeType(p: Parameter, type: 'added' | 'removed' | 'became-required' | 'became-optional'): DeltaType {
  return p.in === 'body' ? (`body-${type}` as DeltaType) : type;
}

/** A stream whose name template has placeholders typed by a named enum uses that enum. */
function addPlaceholderUsers(walk: Sides, stream: string, users: Map<string, EnumUser[]>): void {
  for (const m of stream.matchAll(/<([^>]+)>/g)) {
    const enumName = walk.to.view.service.placeholders[m[1]]?.enum;
    if (enumName) addUser(users, enumName, { stream, name: m[1] });
  }
}

/** Value changes of a named enum, once for all its users alive at both releases. */
function diffEnum(walk: Sides, name: string, usedBy: EnumUser[], out: Delta[]): void {
  const vx = walk.from.enumValues(name);
  const vy = walk.to.enumValues(name);
  const subject: Subject = { type: 'enum', id: name };
  for (const v of new Set([...vx.keys(), ...vy.keys()])) {
    const inX = vx.get(v);
    const inY = vy.get(v);
    const item = (inY ?? inX)!.item;
    const base = { kind: 'enum-value' as const, subject, value: v, usedBy, item, at: item.at };
    if (!inX || !inY) {
      out.push({ ...base, type: inX ? 'removed' : 'added', release: walk.when(subject, (s) => s.enumValues(name).has(v)) });
    } else if (inX.deprecated !== inY.deprecated) {
      out.push({ ...base, type: inY.deprecated ? 'deprecated' : 'undeprecated', release: walk.when(subject, (s) => s.enumValues(name).get(v)?.deprecated) });
    }
  }
}

/** Value changes of a parameter whose schema lists its values inline (no lifecycle per value). */
function diffInlineValues(
  walk: Sides, subject: Subject, name: string, px: Parameter, py: Parameter, paramAt: (s: Surface) => Parameter | undefined, out: Delta[],
): void {
  const vx = inlineEnum(px.schema);
  const vy = inlineEnum(py.schema);
  if (!vx || !vy) return;
  for (const v of new Set([...vx, ...vy])) {
    const inX = vx.includes(v);
    if (inX === vy.includes(v)) continue;
    const release = walk.when(subject, (s) => !!inlineEnum(paramAt(s)?.schema)?.includes(v));
    out.push({ kind: 'enum-value', type: inX ? 'removed' : 'added', subject, parameter: name, value: v, release, param: inX ? px : py, at: py.at });
  }
}

/**
 * For an item whose own removal is the change (not a downgrade past its addition): how many
 * releases it was deprecated before it went, or null if it never was. Undefined otherwise.
 */
function deprecatedFor(walk: Sides, item: Lifecycle, release: string): number | null | undefined {
  const { span } = item;
  const releases = walk.from.view.service.releases;
  if (!(walk instanceof Walk) || span.removed === null || releases[span.removed]?.id !== release) return undefined;
  return span.deprecated === null || span.deprecated >= span.removed ? null : span.removed - span.deprecated;
}

/** The source of the security requirement in force on the <to> side (the newest entry of that scheme). */
function securitySource(y: SurfaceItem): string | undefined {
  const entries = (y.item as { security?: SecurityEntry[] }).security ?? [];
  return entries.filter((e) => e.scheme === y.security).at(-1)?.source;
}
