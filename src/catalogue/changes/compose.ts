// Plans: per (served release, operation), the chain of changes from that release up to the one the
// upstream speaks, composed into one mapping (a→b→c renames become a→c) and checked. A plan is
// what the gateway runs per request and what `plan` prints; operations nothing happened to have no
// plan at all.
import { currentAt, existsAt } from '../lifecycle.js';
import type { Endpoint, Service } from '../model.js';
import { covers } from './covers.js';
import { describeEvent, eventsAt } from './events.js';
import { changeAt, endpointAt, moveTargetAt, unbridgeableAt } from './lookup.js';
import { bodyFields, jsonName, splitStep } from './body-steps.js';
import type { JsonStep, Plan, PlanBridge, Refusal, RequestPart } from './plan.js';
import { composeStep, emptySegment, isEmpty, sourcesOf, type Segment } from './segment.js';
import type { AnswerStep, Change, Unbridgeable } from './types.js';
import { validAtUpstream } from './valid-at-upstream.js';

/**
 * The plan for `operation` as served at release position `s`, up to the upstream's release `u`.
 * null when nothing happens to it on the way (the request goes as it is, at no cost).
 */
export function composePlan(service: Service, operation: string, s: number, u: number): Plan | null {
  if (s >= u) return null;
  const start = endpointAt(service, operation, s);
  if (!start) return null;
  const w = walk(service, operation, start, s, u);
  if (!w.applied.length && !w.guards.length && !w.request.length && !w.refuse && !w.problems.length && !w.uncovered.length) return null;
  return planOf(service, operation, start, w, s, u);
}

/** Where walking the releases from the served one up to the upstream's leaves the request. */
interface Walk {
  /** The operation the request is for by now, and its life at the release reached. */
  key: string;
  ep: Endpoint;
  request: RequestPart[];
  /** The segment being composed, and the JSON steps gathered (pushed onto request at a transform and at the end). */
  seg: Segment;
  json: JsonStep[];
  /** A transform was applied: later value guards would name values no client sends. */
  transformed: boolean;
  perChange: AnswerStep[][];
  applied: Plan['applied'];
  guards: Plan['guards'];
  problems: string[];
  uncovered: string[];
  refuse?: Refusal;
  bridge?: PlanBridge;
}

/** One release at a time: report what nothing bridges, guard or refuse what is unbridgeable, apply the change. */
function walk(service: Service, operation: string, start: Endpoint, s: number, u: number): Walk {
  const w: Walk = { key: operation, ep: start, request: [], seg: emptySegment(), json: [], transformed: false, perChange: [], applied: [], guards: [], problems: [], uncovered: [] };
  for (let r = s + 1; r <= u && !w.refuse && !w.bridge; r++) {
    const change = changeAt(service, r, w.key);
    const unbridgeable = unbridgeableAt(service, r, w.key);
    const release = service.releases[r].id;
    for (const ev of eventsAt(service, w.ep, r)) {
      if (!covers(change, unbridgeable, ev)) w.uncovered.push(`${w.key}: ${describeEvent(ev)} at ${release}, and no change bridges it nor is it declared unbridgeable`);
    }
    guard(w, unbridgeable, release, bodyFields(w.ep, r - 1), service.releases[u].id);
    if (w.refuse) break;
    if (change) apply(service, w, change, r, u);
    else if (!existsAt(w.ep.span, r) && w.ep.span.added <= r) {
      w.refuse = { release, replacement: w.ep.replacement, reason: 'removed, and no change bridges it' };
    }
  }
  flush(w);
  return w;
}

/** The parameters' segment and the JSON steps so far become parts of the request. */
function flush(w: Walk): void {
  if (!isEmpty(w.seg)) w.request.push({ kind: 'segment', segment: w.seg });
  if (w.json.length) w.request.push({ kind: 'json', steps: w.json });
  w.seg = emptySegment();
  w.json = [];
}

/**
 * An unbridgeable entry refuses the whole operation, or guards the client values that reach its
 * parameter; a body field's guard is a JSON step, seeing the body as the steps before it left it.
 */
function guard(w: Walk, unbridgeable: readonly Unbridgeable[], release: string, body: ReadonlySet<string>, upstream: string): void {
  for (const ub of unbridgeable) {
    const replacement = ub.replacement ?? w.ep.replacement;
    if (!ub.parameter) { w.refuse = { release, replacement, reason: ub.reason }; return; }
    if (jsonName(w.key, body)(ub.parameter)) {
      const message = `the upstream (which speaks ${upstream}) no longer takes this value since ${release}: ${ub.reason}${replacement ? `; use ${replacement}` : ''}`;
      w.json.push({ kind: 'guard', field: ub.parameter, values: ub.values ?? null, release, message });
      continue;
    }
    if (w.transformed) continue; // values named after a transform are not client values any more
    const values = ub.values ?? [];
    for (const src of sourcesOf(w.seg, ub.parameter)) {
      if (w.seg.names[src] === null) continue;
      const map = w.seg.values[src] ?? {};
      // Client values that arrive here as one of `values`: mapped ones by their result, the rest as they are.
      const clientValues = [...Object.keys(map).filter((x) => values.includes(map[x])), ...values.filter((v) => !(v in map))];
      w.guards.push({ parameter: src, values: ub.values === undefined ? null : clientValues, release, replacement, reason: ub.reason });
    }
  }
}

/** Apply the change at release position r: a bridge ends the walk; else its steps, and the operation it lands on. */
function apply(service: Service, w: Walk, change: Change, r: number, u: number): void {
  const release = service.releases[r].id;
  w.applied.push({ release, id: change.id });
  w.perChange.push(change.answer);
  const b = change.request.find((x) => x.kind === 'bridge');
  if (b) {
    // Nothing is forwarded: the gateway answers the operation and holds `via` upstream.
    w.bridge = { release, change: change.id, name: b.name, action: b.action, via: b.via, replacement: w.ep.replacement ?? b.via, events: change.events, ...(b.token && { token: b.token }), ...(b.scope && { scope: b.scope }) };
    w.key = b.via;
    return;
  }
  const moved = change.request.find((x) => x.kind === 'move');
  const fields = bodyFields(w.ep, r - 1);
  for (const f of bodyFields(moveTargetAt(service, moved?.to ?? w.key, r), r)) fields.add(f);
  const isJson = jsonName(w.key, fields);
  for (const step of change.request) {
    if (step.kind === 'bridge') continue;
    if (step.kind === 'move') w.key = step.to;
    else if (step.kind === 'transform') {
      flush(w);
      w.request.push({ kind: 'transform', name: step.name });
      w.transformed = true;
    } else {
      const { query, json } = splitStep(step, isJson, release);
      if (query) composeStep(w.seg, query);
      if (json) w.json.push(json);
    }
  }
  const next = moveTargetAt(service, w.key, r);
  if (!next) { w.problems.push(`${change.id}: ${w.key} does not exist at ${release}`); w.refuse = { release, reason: `${w.key} does not exist at ${release}` }; return; }
  w.ep = next;
  if (w.ep.span.added > u) w.refuse = { release, replacement: w.key, reason: `${w.key} only arrives at ${service.releases[w.ep.span.added].id}, after the upstream's release` };
}

/** The plan a walk makes: its security at both ends, whether only a key holder can carry it, and its problems. */
function planOf(service: Service, operation: string, start: Endpoint, w: Walk, s: number, u: number): Plan {
  const { bridge, refuse, request } = w;
  const from = currentAt(start.security, s)?.scheme ?? 'NONE';
  const via = bridge ? endpointAt(service, bridge.via, u) : undefined;
  const to = currentAt((via ?? w.ep).security, u)?.scheme ?? 'NONE';
  const changesSignedBytes = request.length > 0;
  const plan: Plan = {
    service: service.id, release: service.releases[s].id, upstreamRelease: service.releases[u].id, operation, target: w.key, method: w.ep.method, path: w.ep.path,
    applied: w.applied, request, answer: w.perChange.reverse().flat(), refuse, bridge, guards: w.guards, security: { from, to }, changesSignedBytes,
    needsKey: bridge !== undefined || (changesSignedBytes && from === 'SIGNED') || (to === 'SIGNED' && from !== 'SIGNED'),
    uncovered: w.uncovered, problems: w.problems,
  };
  if (bridge) {
    if (bridge.via && !via) w.problems.push(`${bridge.change}: the bridge's ${bridge.via} does not exist at ${plan.upstreamRelease}`);
    if (via) { plan.method = via.method; plan.path = via.path; }
  } else if (!refuse) w.problems.push(...validAtUpstream(service, plan, start, w.ep, s, u));
  return plan;
}
