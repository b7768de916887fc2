// Plans: per (served release, operation), the chain of changes from that release up to the one the
// upstream speaks, composed into one mapping (a→b→c renames become a→c) and checked. A plan is
// what the gateway runs per request and what `plan` prints; operations nothing happened to have no
// plan at all.
import { currentAt, existsAt } from '../lifecycle.js';
import type { Endpoint, SecurityScheme, Service } from '../model.js';
import { describeEvent, eventsAt, type BreakingEvent } from './events.js';
import { transformNamed } from './transforms.js';
import { allOperations } from './ws-operations.js';
import type { AnswerStep, Change, ChangeSet, EventShapes, RequestStep, Unbridgeable } from './types.js';

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

export type RequestPart = { kind: 'segment'; segment: Segment } | { kind: 'transform'; name: string };

export interface Refusal {
  release: string;
  replacement?: string;
  reason: string;
}

/** A bridge the plan ends in: the gateway answers the operation itself and holds `via` upstream (bridges.ts). */
export interface PlanBridge {
  release: string;
  /** The change declaring it. */
  change: string;
  name: string;
  action: string;
  via: string;
  /** What a client without the gateway's key is told to use instead (the operation's replacement, else via). */
  replacement: string;
  events?: EventShapes;
}

export interface Plan {
  service: string;
  release: string;
  upstreamRelease: string;
  operation: string;
  /** The operation the upstream is sent, and its method and path. */
  target: string;
  method: string;
  path: string;
  /** The changes applied, oldest first. */
  applied: { release: string; id: string }[];
  /** How the request goes up (empty: its parameters stay as sent). */
  request: RequestPart[];
  /** How the answer comes down, in the order to apply (the newest change's steps first). */
  answer: AnswerStep[];
  /** Every request of the operation is refused (410) at this release. */
  refuse?: Refusal;
  /** The gateway answers the operation itself through a bridge (signing mode; else 410 naming the replacement). */
  bridge?: PlanBridge;
  /** Requests sending one of these values (client names and values) are refused (410). */
  guards: (Refusal & { parameter: string; values: string[] })[];
  security: { from: SecurityScheme; to: SecurityScheme };
  /** The migration changes bytes a signature covers (query and body); a move of the path does not. */
  changesSignedBytes: boolean;
  /** Only a gateway holding the key can carry it: a client's signature cannot survive the migration. */
  needsKey: boolean;
  /** Events on the way that nothing bridges (lint reports them per operation). */
  uncovered: string[];
  /** Why the composed request could be invalid at the upstream's release. */
  problems: string[];
}

interface Index {
  /** Operation → release position → its change / its unbridgeable entries. */
  changes: Map<string, Map<number, Change>>;
  unbridgeable: Map<string, Map<number, Unbridgeable[]>>;
  endpoints: Map<string, Endpoint[]>;
}
const indexes = new WeakMap<ChangeSet, Index>();

function indexOf(service: Service): Index {
  let ix = indexes.get(service.changes);
  if (ix) return ix;
  ix = { changes: new Map(), unbridgeable: new Map(), endpoints: new Map() };
  for (const c of service.changes.changes) {
    let byRelease = ix.changes.get(c.operation);
    if (!byRelease) ix.changes.set(c.operation, (byRelease = new Map()));
    if (!byRelease.has(c.index)) byRelease.set(c.index, c);
  }
  for (const u of service.changes.unbridgeable) {
    let byRelease = ix.unbridgeable.get(u.operation);
    if (!byRelease) ix.unbridgeable.set(u.operation, (byRelease = new Map()));
    byRelease.set(u.index, [...(byRelease.get(u.index) ?? []), u]);
  }
  for (const e of allOperations(service)) ix.endpoints.set(e.key, [...(ix.endpoints.get(e.key) ?? []), e]);
  indexes.set(service.changes, ix);
  return ix;
}

const NO_UNBRIDGEABLE: Unbridgeable[] = [];

export function changeAt(service: Service, r: number, operation: string): Change | undefined {
  return indexOf(service).changes.get(operation)?.get(r);
}

export function unbridgeableAt(service: Service, r: number, operation: string): Unbridgeable[] {
  return indexOf(service).unbridgeable.get(operation)?.get(r) ?? NO_UNBRIDGEABLE;
}

/** Release positions where the operation has a change or an unbridgeable entry. */
export function declaredAt(service: Service, operation: string): number[] {
  const ix = indexOf(service);
  return [...(ix.changes.get(operation)?.keys() ?? []), ...(ix.unbridgeable.get(operation)?.keys() ?? [])];
}

/** The endpoint with this key that exists at release position r. */
export function endpointAt(service: Service, key: string, r: number): Endpoint | undefined {
  return indexOf(service).endpoints.get(key)?.find((e) => existsAt(e.span, r));
}

/**
 * The endpoint a `move` at release position r lands on: the life alive at r, else the next life to
 * come after r (a successor the exchange published a release later than the removal; until it
 * arrives, an upstream that old has nowhere to send the request).
 */
export function moveTargetAt(service: Service, key: string, r: number): Endpoint | undefined {
  const lives = indexOf(service).endpoints.get(key);
  return lives?.find((e) => existsAt(e.span, r)) ?? lives?.filter((e) => e.span.added > r).sort((a, b) => a.span.added - b.span.added)[0];
}

/** Position of the release the upstream speaks: the setting, else service.yaml upstreamRelease, else the newest. */
export function upstreamIndex(service: Service, setting?: string): number {
  const id = setting ?? service.upstreamRelease;
  const i = id === undefined ? -1 : service.releases.findIndex((r) => r.id === id);
  return i >= 0 ? i : service.releases.length - 1;
}

/** Whether a change (or an unbridgeable entry) bridges one event. */
export function covers(change: Change | undefined, unbridgeable: readonly Unbridgeable[], ev: BreakingEvent): 'change' | 'unbridgeable' | null {
  for (const u of unbridgeable) {
    if (!u.parameter) return 'unbridgeable';
    if (ev.kind !== 'removed' && ev.parameter === u.parameter && (!u.values || (ev.kind === 'valueRemoved' && u.values.includes(ev.value)))) return 'unbridgeable';
  }
  if (!change) return null;
  const steps = change.request;
  if (steps.some((s) => s.kind === 'bridge')) return 'change'; // the gateway answers the whole operation itself
  const touches = (name: string, how: 'reads' | 'writes') => steps.some((s) => {
    if (s.kind === 'rename') return how === 'reads' ? name in s.names : Object.values(s.names).includes(name);
    if (s.kind === 'drop') return how === 'reads' && s.names.includes(name);
    if (s.kind === 'set' || s.kind === 'default') return how === 'writes' && name in s.values;
    if (s.kind === 'map') return how === 'reads' ? s.parameter === name && s.to !== name : s.to === name;
    if (s.kind === 'transform') return (transformNamed(s.name)?.[how] ?? []).includes(name);
    return false;
  });
  switch (ev.kind) {
    case 'removed': return steps.some((s) => s.kind === 'move') ? 'change' : null;
    case 'parameterRemoved': return touches(ev.parameter, 'reads') ? 'change' : null;
    case 'requiredAdded': return touches(ev.parameter, 'writes') ? 'change' : null;
    case 'valueRemoved':
      return steps.some((s) => (s.kind === 'map' && s.parameter === ev.parameter && ev.value in s.values) || (s.kind === 'transform' && (transformNamed(s.name)?.reads ?? []).includes(ev.parameter)))
        ? 'change' : null;
  }
}

const emptySegment = (): Segment => ({ names: {}, values: {}, defaults: {}, sets: {} });

/** Client names whose value is sent as `name` after the segment so far (with itself if it passes through). */
function sourcesOf(seg: Segment, name: string): string[] {
  const out = Object.keys(seg.names).filter((k) => seg.names[k] === name);
  // A client parameter of that very name passes through, unless an earlier step already renamed one to it.
  if (!(name in seg.names) && !out.length) out.push(name);
  return out;
}

/** Compose one request step onto a segment. */
function composeStep(seg: Segment, s: Exclude<RequestStep, { kind: 'move' | 'transform' | 'bridge' }>): void {
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
      for (const [k, v] of Object.entries(s.values)) { seg.sets[k] = v; delete seg.defaults[k]; }
      return;
    case 'default':
      for (const [k, v] of Object.entries(s.values)) if (!(k in seg.sets)) seg.defaults[k] = v;
      return;
    case 'map': {
      for (const src of sourcesOf(seg, s.parameter)) {
        const had = seg.values[src];
        if (had) for (const k of Object.keys(had)) had[k] = s.values[had[k]] ?? had[k];
        const merged = { ...s.values, ...(had ?? {}) };
        seg.values[src] = merged;
      }
      for (const bag of [seg.defaults, seg.sets]) if (s.parameter in bag) bag[s.parameter] = s.values[bag[s.parameter]] ?? bag[s.parameter];
      if (s.to !== s.parameter) renameTo(s.parameter, s.to);
      return;
    }
  }
}

const isEmpty = (seg: Segment) => !Object.keys(seg.names).length && !Object.keys(seg.values).length && !Object.keys(seg.defaults).length && !Object.keys(seg.sets).length;

/**
 * The plan for `operation` as served at release position `s`, up to the upstream's release `u`.
 * null when nothing happens to it on the way (the request goes as it is, at no cost).
 */
export function composePlan(service: Service, operation: string, s: number, u: number): Plan | null {
  if (s >= u) return null;
  const start = endpointAt(service, operation, s);
  if (!start) return null;
  let key = operation;
  let ep: Endpoint = start;
  const request: RequestPart[] = [];
  let seg = emptySegment();
  const perChange: AnswerStep[][] = [];
  const applied: Plan['applied'] = [];
  const guards: Plan['guards'] = [];
  const problems: string[] = [];
  const uncovered: string[] = [];
  let refuse: Refusal | undefined;
  let bridge: PlanBridge | undefined;
  let transformed = false;
  for (let r = s + 1; r <= u && !refuse && !bridge; r++) {
    const change = changeAt(service, r, key);
    const unbridgeable = unbridgeableAt(service, r, key);
    const release = service.releases[r].id;
    for (const ev of eventsAt(service, ep, r)) {
      if (!covers(change, unbridgeable, ev)) uncovered.push(`${key}: ${describeEvent(ev)} at ${release}, and no change bridges it nor is it declared unbridgeable`);
    }
    for (const ub of unbridgeable) {
      const replacement = ub.replacement ?? ep.replacement;
      if (!ub.parameter) { refuse = { release, replacement, reason: ub.reason }; break; }
      if (transformed) continue; // values named after a transform are not client values any more
      const values = ub.values ?? [];
      for (const src of sourcesOf(seg, ub.parameter)) {
        if (seg.names[src] === null) continue;
        const map = seg.values[src] ?? {};
        // Client values that arrive here as one of `values`: mapped ones by their result, the rest as they are.
        const clientValues = [...Object.keys(map).filter((x) => values.includes(map[x])), ...values.filter((v) => !(v in map))];
        guards.push({ parameter: src, values: clientValues, release, replacement, reason: ub.reason });
      }
    }
    if (refuse) break;
    if (change) {
      applied.push({ release, id: change.id });
      perChange.push(change.answer);
      const b = change.request.find((x) => x.kind === 'bridge');
      if (b) {
        // Nothing is forwarded: the gateway answers the operation and holds `via` upstream.
        bridge = { release, change: change.id, name: b.name, action: b.action, via: b.via, replacement: ep.replacement ?? b.via, events: change.events };
        key = b.via;
        break;
      }
      for (const step of change.request) {
        if (step.kind === 'bridge') continue;
        if (step.kind === 'move') key = step.to;
        else if (step.kind === 'transform') {
          if (!isEmpty(seg)) request.push({ kind: 'segment', segment: seg });
          seg = emptySegment();
          request.push({ kind: 'transform', name: step.name });
          transformed = true;
        } else composeStep(seg, step);
      }
      const next = moveTargetAt(service, key, r);
      if (!next) { problems.push(`${change.id}: ${key} does not exist at ${release}`); refuse = { release, reason: `${key} does not exist at ${release}` }; break; }
      ep = next;
      if (ep.span.added > u) { refuse = { release, replacement: key, reason: `${key} only arrives at ${service.releases[ep.span.added].id}, after the upstream's release` }; break; }
    } else if (!existsAt(ep.span, r) && ep.span.added <= r) {
      refuse = { release, replacement: ep.replacement, reason: 'removed, and no change bridges it' };
    }
  }
  if (!isEmpty(seg)) request.push({ kind: 'segment', segment: seg });
  if (!applied.length && !guards.length && !refuse && !problems.length && !uncovered.length) return null;
  const from = currentAt(start.security, s)?.scheme ?? 'NONE';
  const via = bridge ? endpointAt(service, bridge.via, u) : undefined;
  const to = currentAt((via ?? ep).security, u)?.scheme ?? 'NONE';
  const changesSignedBytes = request.length > 0;
  const plan: Plan = {
    service: service.id, release: service.releases[s].id, upstreamRelease: service.releases[u].id, operation, target: key, method: ep.method, path: ep.path,
    applied, request, answer: perChange.reverse().flat(), refuse, bridge, guards, security: { from, to }, changesSignedBytes,
    needsKey: bridge !== undefined || (changesSignedBytes && from === 'SIGNED') || (to === 'SIGNED' && from !== 'SIGNED'),
    uncovered, problems,
  };
  if (bridge) {
    if (bridge.via && !via) problems.push(`${bridge.change}: the bridge's ${bridge.via} does not exist at ${plan.upstreamRelease}`);
    if (via) { plan.method = via.method; plan.path = via.path; }
  } else if (!refuse) problems.push(...validAtUpstream(service, plan, start, ep, s, u));
  return plan;
}

/**
 * The composed request must be valid at the upstream's release whatever valid request the client
 * sent: every required parameter of the target is always sent, and every constant is a value the
 * target takes. (Transforms are checked by the generated property test.)
 */
function validAtUpstream(service: Service, plan: Plan, start: Endpoint, target: Endpoint, s: number, u: number): string[] {
  const out: string[] = [];
  const signing = new Set(service.signedParameters.map((p) => p.name));
  const sent = new Set<string>();
  for (const p of start.parameters) if (p.required && existsAt(p.span, s)) sent.add(p.name);
  for (const part of plan.request) {
    if (part.kind === 'transform') {
      for (const w of transformNamed(part.name)?.writes ?? []) sent.add(w);
      continue;
    }
    const seg = part.segment;
    for (const n of [...sent]) {
      if (!(n in seg.names)) continue;
      sent.delete(n);
      if (seg.names[n] !== null) sent.add(seg.names[n]!);
    }
    for (const k of [...Object.keys(seg.sets), ...Object.keys(seg.defaults)]) sent.add(k);
  }
  const label = `${plan.operation} at ${plan.release} → ${plan.target} at ${plan.upstreamRelease}`;
  for (const p of target.parameters) {
    if (!p.required || !existsAt(p.span, u) || signing.has(p.name)) continue;
    if (!sent.has(p.name)) out.push(`${label}: required parameter ${p.name} is not always sent`);
  }
  for (const part of plan.request) {
    if (part.kind !== 'segment') continue;
    const constants = [...Object.entries(part.segment.sets), ...Object.entries(part.segment.defaults)];
    for (const [src, map] of Object.entries(part.segment.values)) {
      const name = part.segment.names[src] ?? src;
      for (const v of Object.values(map)) constants.push([name, v]);
    }
    for (const [name, value] of constants) {
      const p = target.parameters.find((x) => x.name === name && existsAt(x.span, u));
      if (!p) { out.push(`${label}: sends ${name}, which ${plan.target} does not take at ${plan.upstreamRelease}`); continue; }
      const allowed = p.enum ? service.enums[p.enum]?.values.filter((v) => existsAt(v.span, u)).map((v) => v.value)
        : (p.schema.enum as unknown[] | undefined)?.map(String);
      if (allowed && !allowed.includes(value)) out.push(`${label}: ${name}=${value} is not a value ${plan.target} takes at ${plan.upstreamRelease} (${allowed.join(', ')})`);
    }
  }
  return out;
}
