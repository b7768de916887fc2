// The neutral diff: compare the surfaces at <from> and <to> and, for each difference, walk the
// releases in between to name the one where it happened. No severity or wording here (rules.ts).
import type { Endpoint, Lifecycle, Parameter, SecurityEntry, Service, Stream, WsMethod } from '../catalogue/model.js';
import { existsAt } from '../catalogue/lifecycle.js';
import { resolveService, resolveServiceAt } from '../catalogue/resolve.js';
export type { Sides } from './surface.js';
import { diffBody, diffConstraints, diffSchema, diffWeight } from './diff-schema.js';
import { cmp, compareUsers } from './order.js';
import { inlineEnum, subjectKey, Surface, type Sides, type SurfaceItem } from './surface.js';
import type { Delta, EnumUser, Kind, Subject } from './types.js';

/** One release of two catalogues (base and working): what clients pinned there see change. */
export class Pinned implements Sides {
  readonly from: Surface;
  readonly to: Surface;
  constructor(base: Service, head: Service, readonly release: string) {
    this.from = new Surface(resolveService(base, release));
    this.to = new Surface(resolveService(head, release));
  }

  when(): string {
    return this.release;
  }

  whenServed(): string {
    return this.release;
  }
}

/**
 * The releases from <from> to <to>. The two ends are resolved in full (every item served there); to date a change, the walk
 * visits only the releases where the subject's state can change: the added/deprecated/removed
 * releases of its own lifecycle items (its entries, security entries, parameters, the service-wide
 * parameters; an enum's values), resolved over the service narrowed to that subject. Resolution
 * and status still come from resolveService and lifecycle.ts only.
 */
export class Walk implements Sides {
  readonly lo: number;
  readonly hi: number;
  private ends = new Map<number, Surface>();
  private last?: { key: string; timeline: Timeline };
  private entries?: Map<string, Lifecycle[]>;

  constructor(
    readonly service: Service,
    readonly fromAt: number,
    readonly toAt: number,
  ) {
    this.lo = Math.min(fromAt, toAt);
    this.hi = Math.max(fromAt, toAt);
  }

  /**
   * The surface at one end, resolved over the service narrowed to the endpoints that exist there:
   * the surface holds served endpoints only, so resolving the others would be wasted.
   */
  private end(at: number): Surface {
    let s = this.ends.get(at);
    if (!s) {
      s = new Surface(resolveServiceAt({ ...this.service, endpoints: this.service.endpoints.filter((e) => existsAt(e.span, at)) }, at));
      this.ends.set(at, s);
    }
    return s;
  }

  get from(): Surface {
    return this.end(this.fromAt);
  }

  get to(): Surface {
    return this.end(this.toAt);
  }

  /**
   * The release where `state` (of `subject`) last changed on the way from <from> to <to>, named
   * chronologically: upgrading, the start of the final run of equal states; downgrading, the
   * release after the end of the run that <to> starts (where the item was added or removed).
   * States are compared with ===, so they are primitives. Only the points up to the change found
   * are resolved (from the <to> end upgrading, from <from> downgrading).
   */
  when(subject: Subject, state: (s: Surface) => unknown): string {
    const t = this.timeline(subject);
    return this.changeAt(subject, t.points, (at) => state(t.surface(at)));
  }

  /**
   * when(subject, (s) => s.items.has(key)), read from the subject's entries alone: an item is
   * served where one of its entries exists (lifecycle.ts), which changes only where an entry starts
   * or ends, so no release needs resolving.
   */
  whenServed(subject: Subject): string {
    const entries = this.entriesOf(subjectKey(subject));
    const exists = (at: number) => entries.some((e) => existsAt(e.span, at));
    return this.changeAt(subject, changePoints([entries], this.lo, this.hi), exists);
  }

  private changeAt(subject: Subject, points: readonly number[], stateAt: (at: number) => unknown): string {
    let j: number;
    if (this.toAt > this.fromAt) {
      j = points.length - 1;
      const last = stateAt(points[j]);
      while (j > 0 && stateAt(points[j - 1]) === last) j--;
    } else {
      j = 1;
      const first = stateAt(points[0]);
      while (j < points.length && stateAt(points[j]) === first) j++;
    }
    if (j <= 0 || j >= points.length) throw new Error(`internal: no change of state of ${subject.type} ${subject.id} between the two releases`);
    return this.service.releases[points[j]].id;
  }

  /**
   * The subject's timeline. Only the last one is kept: diffWalk asks about one subject at a time,
   * and surfaces that die young cost the garbage collector far less than a thousand kept ones.
   */
  private timeline(subject: Subject): Timeline {
    const key = subjectKey(subject);
    if (this.last?.key !== key) this.last = { key, timeline: new Timeline(this.service, subject, this.entriesOf(key), this.lo, this.hi) };
    return this.last.timeline;
  }

  /** Every catalogue entry of a subject (an endpoint key or a name may have several, one per span). */
  private entriesOf(key: string): Lifecycle[] {
    if (!this.entries) {
      this.entries = new Map();
      const add = (type: Subject['type'], id: string, item: Lifecycle) => {
        const k = subjectKey({ type, id });
        this.entries!.set(k, [...(this.entries!.get(k) ?? []), item]);
      };
      for (const e of this.service.endpoints) add('endpoint', e.key, e);
      for (const m of this.service.wsMethods) add('ws-method', m.name, m);
      for (const x of this.service.streams) add('stream', x.name, x);
    }
    return this.entries.get(key) ?? [];
  }
}

/** One subject's releases of possible change within [lo, hi], over the service narrowed to it. */
class Timeline {
  /** lo, then every release in (lo, hi] where one of the subject's items starts, is deprecated or ends. */
  readonly points: number[];
  private narrowed: Service;
  private surfaces = new Map<number, Surface>();

  constructor(service: Service, subject: Subject, entries: Lifecycle[], lo: number, hi: number) {
    const of = <T>(type: Subject['type']) => (subject.type === type ? entries : []) as T[];
    const endpoints = of<Endpoint>('endpoint');
    const wsMethods = of<WsMethod>('ws-method');
    const streams = of<Stream>('stream');
    this.narrowed = { ...service, endpoints, wsMethods, streams };
    const lists: (readonly Lifecycle[])[] = [entries];
    for (const e of [...endpoints, ...wsMethods]) lists.push(e.security, e.parameters, e.weights ?? []);
    if (endpoints.length) lists.push(service.commonParameters, service.signedParameters);
    if (subject.type === 'enum') lists.push(service.enums[subject.id]?.values ?? []);
    this.points = changePoints(lists, lo, hi);
  }

  surface(at: number): Surface {
    let s = this.surfaces.get(at);
    if (!s) {
      s = new Surface(resolveServiceAt(this.narrowed, at));
      this.surfaces.set(at, s);
    }
    return s;
  }
}

/** lo, then every release in (lo, hi] where one of the items starts, is deprecated or ends, in order. */
function changePoints(lists: readonly (readonly Lifecycle[])[], lo: number, hi: number): number[] {
  const points: number[] = [];
  const hit = (at: number | null) => {
    if (at !== null && at > lo && at <= hi) points.push(at);
  };
  for (let l = 0; l < lists.length; l++) {
    const items = lists[l];
    for (let i = 0; i < items.length; i++) {
      const { span } = items[i];
      hit(span.added);
      hit(span.deprecated);
      hit(span.removed);
    }
  }
  points.sort((a, b) => a - b);
  const out = [lo];
  for (let i = 0; i < points.length; i++) if (points[i] !== out[out.length - 1]) out.push(points[i]);
  return out;
}

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
    const subject = (x ?? y)!.subject;
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
  const { subject } = x;
  const paramAt = (s: Surface, name: string): Parameter | undefined => s.items.get(key)?.parameters?.get(name);
  const names = unionKeys(x.parameters!, y.parameters!);
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    const px = x.parameters!.get(name);
    const py = y.parameters!.get(name);
    if (!px || !py) {
      const p = (px ?? py)!;
      // Signed parameters come and go with the security scheme: the security change reports them.
      if (securityChanged && (px ? x : y).signed?.has(p)) continue;
      const release = walk.when(subject, (s) => paramAt(s, name) !== undefined);
      out.push({ kind: 'parameter', type: px ? 'removed' : 'added', subject, parameter: name, release, item: p, param: p, at: p.at });
      continue;
    }
    if (px.required !== py.required) {
      const release = walk.when(subject, (s) => paramAt(s, name)?.required);
      out.push({ kind: 'parameter', type: py.required ? 'became-required' : 'became-optional', subject, parameter: name, release, item: py, param: py, at: py.at });
    }
    if (px !== py) diffSchema(walk, subject, name, px.schema, py.schema, (s) => paramAt(s, name)?.schema, { param: py, at: py.at }, out);
    const dx = walk.from.status(px) === 'deprecated';
    const dy = walk.to.status(py) === 'deprecated';
    if (dx !== dy) {
      const release = walk.when(subject, (s) => {
        const p = paramAt(s, name);
        return p !== undefined && s.status(p) === 'deprecated';
      });
      out.push({ kind: 'parameter', type: dy ? 'deprecated' : 'undeprecated', subject, parameter: name, release, item: py, param: py, at: py.at });
    }
    if (px.enum && px.enum === py.enum) {
      addUser(users, px.enum, { [subject.type === 'endpoint' ? 'endpoint' : 'wsMethod']: subject.id, name });
    }
    // One entry at both ends has one schema: nothing inline to compare.
    if (px !== py) diffInlineValues(walk, subject, name, px, py, (s) => paramAt(s, name), out);
  }
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
