// The two sides a diff compares, and where on the way between them a difference happened: one
// release of two catalogues (Pinned), or two releases of one service (Walk), which dates a change
// by resolving only the releases where the subject's state can change.
import type { Endpoint, Lifecycle, Service, Stream, WsMethod } from '../catalogue/model.js';
import { existsAt } from '../catalogue/lifecycle.js';
import { resolveService, resolveServiceAt } from '../catalogue/resolve.js';
import { subjectKey, Surface, type Sides } from './surface.js';
import type { Subject } from './types.js';

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
