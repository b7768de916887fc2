// A segment: a run of request steps without a transform, composed into one mapping of the client's
// parameters (a→b→c renames become a→c). Both carriers (a REST query or form, a websocket frame's
// params) apply a segment through mapParam and addedParams, so the rules live here.
import type { RequestStep, Scalar } from './types.js';

/** A run of request steps without a transform, composed into one mapping of the client's parameters. */
export interface Segment {
  /** Client name → name sent (null: dropped). Names not listed pass unchanged. */
  names: Record<string, string | null>;
  /** Client name → (client value → value sent). */
  values: Record<string, Record<string, string>>;
  /** Sent when absent after the mapping (names as sent). */
  defaults: Record<string, string>;
  /** Always sent with this value (names as sent). */
  sets: Record<string, string>;
}

/**
 * Where a client's parameter goes under a segment: the name it is sent under (null: dropped) and its
 * value as the segment maps it (undefined: sent as it came). Both carriers (a REST query or form, a
 * websocket frame's params) apply a segment through this and addedParams, so the rules live here.
 */
export function mapParam(seg: Segment, name: string, value: string | undefined): { to: string | null; mapped: string | undefined } {
  return { to: name in seg.names ? seg.names[name] : name, mapped: value === undefined ? undefined : seg.values[name]?.[value] };
}

/** What a segment sends besides the client's mapped parameters: its `sets` always, its `defaults` where `has(name)` is false. */
export function addedParams(seg: Segment, has: (name: string) => boolean): { name: string; value: string; always: boolean }[] {
  const out = Object.entries(seg.sets).map(([name, value]) => ({ name, value, always: true }));
  for (const [name, value] of Object.entries(seg.defaults)) if (!(name in seg.sets) && !has(name)) out.push({ name, value, always: false });
  return out;
}

export const emptySegment = (): Segment => ({ names: {}, values: {}, defaults: {}, sets: {} });

/** Client names whose value is sent as `name` after the segment so far (with itself if it passes through). */
export function sourcesOf(seg: Segment, name: string): string[] {
  const out = Object.keys(seg.names).filter((k) => seg.names[k] === name);
  // A client parameter of that very name passes through, unless an earlier step already renamed one to it.
  if (!(name in seg.names) && !out.length) out.push(name);
  return out;
}

/** Constants as a query carries them: text. */
const text = (o: Readonly<Record<string, Scalar>>): Record<string, string> => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, String(v)]));

/** Compose one request step on query or form parameters onto a segment (list and integers are JSON steps only). */
export function composeStep(seg: Segment, s: Exclude<RequestStep, { kind: 'move' | 'transform' | 'bridge' | 'list' | 'integers' }>): void {
  const renameTo = (from: string, to: string | null) => {
    for (const src of sourcesOf(seg, from)) seg.names[src] = to;
    for (const bag of [seg.defaults, seg.sets]) {
      if (from in bag) {
        const v = bag[from];
        delete bag[from];
        if (to !== null) bag[to] = v;
      }
    }
  };
  switch (s.kind) {
    case 'rename':
      // All at once: { a: b, b: a } swaps.
      { const before = Object.entries(s.names).map(([from, to]) => [sourcesOf(seg, from), from, to] as const);
        for (const [srcs, from, to] of before) {
          for (const src of srcs) seg.names[src] = to;
          for (const bag of [seg.defaults, seg.sets]) if (from in bag) { bag[to] = bag[from]; delete bag[from]; }
        } }
      return;
    case 'drop':
      for (const n of s.names) renameTo(n, null);
      return;
    case 'set':
      for (const [k, v] of Object.entries(s.values)) { seg.sets[k] = String(v); delete seg.defaults[k]; }
      return;
    case 'default':
      for (const [k, v] of Object.entries(s.values)) if (!(k in seg.sets)) seg.defaults[k] = String(v);
      return;
    case 'map': {
      const values = text(s.values);
      for (const src of sourcesOf(seg, s.parameter)) {
        const had = seg.values[src];
        if (had) for (const k of Object.keys(had)) had[k] = values[had[k]] ?? had[k];
        const merged = { ...values, ...(had ?? {}) };
        seg.values[src] = merged;
      }
      for (const bag of [seg.defaults, seg.sets]) if (s.parameter in bag) bag[s.parameter] = values[bag[s.parameter]] ?? bag[s.parameter];
      if (s.to !== s.parameter) renameTo(s.parameter, s.to);
      return;
    }
  }
}

export const isEmpty = (seg: Segment) => !Object.keys(seg.names).length && !Object.keys(seg.values).length && !Object.keys(seg.defaults).length && !Object.keys(seg.sets).length;
