// Check a service's version changes against the catalogue, and measure coverage: every event that
// would break an old client at the upstream's release is bridged by a change or declared
// unbridgeable. Problems point at a file and line, as the loader's do; lint prints them the same way.
import { existsAt } from '../lifecycle.js';
import type { Endpoint, Service } from '../model.js';
import type { Problem } from '../problems.js';
import { describeEvent, eventsAt } from './events.js';
import { composePlan } from './compose.js';
import { covers } from './covers.js';
import { changeAt, declaredAt, endpointAt, moveTargetAt, unbridgeableAt, upstreamIndex } from './lookup.js';
import { bridgeNamed, placeholderName, placeholderPath, subscriptionIdField } from './bridges.js';
import { bodyFields, jsonName, splitStep } from './body-steps.js';
import { checkAnswerStep, checkJsonStep, movePathProblem, type At, type JsonContext } from './check-steps.js';
import { transformNamed } from './transforms.js';
import type { BridgeStep, Change, RequestStep } from './types.js';
import { allOperations, operationKind } from './ws-operations.js';

export interface Coverage {
  service: string;
  upstreamRelease: string;
  /** Operations with breaking events, every one bridged by a change. */
  bridged: string[];
  /** Operations declared unbridgeable (410 naming the replacement) at some release. */
  unbridgeable: string[];
  /** Operations with an event nothing covers (lint fails). */
  uncovered: string[];
  /** Operations with some values declared unbridgeable (the rest of their requests are bridged). */
  partly: string[];
}

export interface ChangesReport {
  problems: Problem[];
  /** Answer fields declared lost (`lost:`): what an old client no longer gets, one line each. */
  warnings: Problem[];
  coverage: Coverage | null;
}

/** Check the changes of a versioned service against the upstream's release (setting, service.yaml, newest). */
export function checkChanges(service: Service, upstreamSetting?: string): ChangesReport {
  if (!service.versioned) return { problems: [], warnings: [], coverage: null };
  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  const u = upstreamIndex(service, upstreamSetting);
  checkDeclarations(service, problems, warnings);
  const coverage: Coverage = { service: service.id, upstreamRelease: service.releases[u].id, bridged: [], unbridgeable: [], uncovered: [], partly: [] };
  const seen = new Set<string>();
  for (const e of allOperations(service)) {
    let verdict: 'none' | 'bridged' | 'unbridgeable' | 'uncovered' = 'none';
    let partly = false;
    for (let r = Math.max(1, e.span.added + 1); r <= u; r++) {
      const events = eventsAt(service, e, r);
      if (!events.length) continue;
      const change = changeAt(service, r, e.key);
      const unb = unbridgeableAt(service, r, e.key);
      for (const ev of events) {
        const how = covers(change, unb, ev);
        if (!how) {
          verdict = 'uncovered';
          problems.push({ ...e.at, message: `${e.key}: ${describeEvent(ev)} at ${service.releases[r].id} (upstream speaks ${coverage.upstreamRelease}); bridge it with a change in changes.yaml or declare it unbridgeable` });
        } else if (how === 'unbridgeable' && (ev.kind === 'removed' || unb.some((x) => !x.parameter))) {
          if (verdict !== 'uncovered') verdict = 'unbridgeable';
        } else if (how === 'unbridgeable') partly = true;
        else if (verdict === 'none') verdict = 'bridged';
      }
    }
    // A change on an operation the upstream still has (deprecated in favour of its replacement) bridges it too.
    if (verdict === 'none' && declaredAt(service, e.key).some((r) => r > e.span.added && r <= u && existsAt(e.span, r - 1) && changeAt(service, r, e.key))) verdict = 'bridged';
    if (seen.has(e.key) && verdict === 'none') continue;
    seen.add(e.key);
    if (verdict !== 'none') coverage[verdict].push(e.key);
    if (partly) coverage.partly.push(e.key);
  }
  checkPlans(service, u, problems);
  return { problems, warnings, coverage };
}

/** Every change and unbridgeable entry must touch something that exists, and none may conflict. */
function checkDeclarations(service: Service, problems: Problem[], warnings: Problem[]): void {
  const seen = new Map<string, Change>();
  for (const c of service.changes.changes) {
    if (c.index < 1) continue; // release already reported by the reader
    checkChange(service, c, seen, (line, message) => problems.push({ ...line, message: `change ${c.id}: ${message}` }));
    for (const s of c.answer) {
      if (s.kind !== 'lost') continue;
      const where = s.in ? ` (in ${s.in})` : '';
      for (const n of s.names) warnings.push({ ...s.at, message: `change ${c.id}: ${c.operation}: answer field ${n}${where} of ${service.releases[c.index - 1].id} is lost from ${c.release} on; nothing restores it, an old client gets the answer without it` });
    }
  }
  checkUnbridgeable(service, problems);
}


/** One change: no conflict with another declaration at its release, and every step touches what exists. */
function checkChange(service: Service, c: Change, seen: Map<string, Change>, at: At): void {
  const before = service.releases[c.index - 1].id;
  const other = seen.get(`${c.index} ${c.operation}`);
  if (other) at(c.at, `conflicts with change ${other.id} (${other.at.file}:${other.at.line}): both change ${c.operation} at ${c.release}`);
  seen.set(`${c.index} ${c.operation}`, c);
  if ([...service.changes.changes].some((x) => x !== c && x.id === c.id)) at(c.at, `duplicate change id "${c.id}"`);
  if (unbridgeableAt(service, c.index, c.operation).some((u) => !u.parameter)) at(c.at, `conflicts with an unbridgeable declaration of ${c.operation} at ${c.release}`);
  const ep = endpointAt(service, c.operation, c.index - 1);
  if (!ep) { at(c.at, `touches nothing: ${c.operation} does not exist at ${before}, the release before ${c.release}`); return; }
  if (!c.request.length && !c.answer.length) at(c.at, 'touches nothing: it has neither request nor answer steps');
  // The stream relay forwards names as the client wrote them (and events name them): it can refuse a name, not rewrite it.
  const bridged = c.request.some((s) => s.kind === 'bridge');
  if (operationKind(c.operation) === 'stream' && !bridged) at(c.at, `${c.operation}: stream names are not migrated (the relay forwards a name as written and events carry it back); declare it unbridgeable naming the replacement, or bridge it (the gateway feeds the stream itself)`);
  if (bridged && c.request.length > 1) at(c.at, 'a bridge answers the operation itself: it takes no other request step');
  if (c.events && !bridged) at(c.events.at, 'events are the shapes a bridge maps: this change has no bridge step');
  // Names a step may refer to: the operation's parameters just before the release, and any an earlier step introduced.
  const names = new Set(ep.parameters.filter((p) => existsAt(p.span, c.index - 1)).map((p) => p.name));
  for (const p of service.signedParameters) names.add(p.name);
  // Body fields: the operation's just before the release, and those of the operation it lands on.
  const fields = bodyFields(ep, c.index - 1);
  for (const f of bodyFields(moveTargetAt(service, c.request.find((s) => s.kind === 'move')?.to ?? c.operation, c.index), c.index)) fields.add(f);
  const x: JsonContext = { ep, r: c.index - 1, before, names, isJson: jsonName(c.operation, fields), at };
  for (const s of c.request) checkRequestStep(service, c, ep, s, x);
  for (const s of c.answer) {
    if (s.kind === 'transform' && !transformNamed(s.name)?.answer) at(s.at, `transform "${s.name}" is not an answer transform in src/catalogue/changes/transforms.ts`);
    checkAnswerStep(c.operation, s, at);
  }
}

/** One request step: the names it reads exist by then (`names`, to which it adds what it writes), and what it names is real. */
function checkRequestStep(service: Service, c: Change, ep: Endpoint, step: RequestStep, x: JsonContext): void {
  const { names, at } = x;
  let s = step;
  if (s.kind !== 'move' && s.kind !== 'transform' && s.kind !== 'bridge') {
    // JSON body fields are checked by their own rules; the rest of the step names query or form parameters.
    const { query, json } = splitStep(s, x.isJson, c.release);
    if (json) checkJsonStep(x, json);
    if (!query) return;
    s = query;
  }
  const before = x.before;
  const need = (n: string, what: string) => { if (!names.has(n)) at(s.at, `${what} "${n}", which ${c.operation} does not have at ${before}`); };
  switch (s.kind) {
    case 'move': {
      if (operationKind(s.to) !== operationKind(c.operation)) at(s.at, `moves ${c.operation} to ${s.to}, another kind of operation (a REST request, a websocket-API frame and a stream name are carried to their own kind)`);
      const to = moveTargetAt(service, s.to, c.index);
      if (!to) at(s.at, `moves to ${s.to}, which does not exist at ${c.release} nor after it`);
      if (s.to === c.operation) at(s.at, `touches nothing: moves ${c.operation} to itself`);
      const unfilled = to && operationKind(s.to) === 'rest' ? movePathProblem(ep, to) : undefined;
      if (unfilled) at(s.at, unfilled);
      break;
    }
    case 'rename':
      for (const [from, to] of Object.entries(s.names)) { need(from, 'renames parameter'); if (from === to) at(s.at, `touches nothing: renames ${from} to itself`); names.add(to); }
      break;
    case 'drop': for (const n of s.names) need(n, 'drops parameter'); break;
    case 'map': {
      need(s.parameter, 'maps parameter');
      const p = ep.parameters.find((x) => x.name === s.parameter);
      const known = p?.enum ? service.enums[p.enum]?.values.filter((v) => existsAt(v.span, c.index - 1)).map((v) => v.value) : undefined;
      for (const v of Object.keys(s.values)) if (known && !known.includes(v)) at(s.at, `maps ${s.parameter}=${v}, a value ${c.operation} does not take at ${before}`);
      names.add(s.to);
      break;
    }
    case 'set': case 'default': for (const k of Object.keys(s.values)) names.add(k); break;
    case 'bridge': {
      const b = bridgeNamed(s.name);
      if (!b) { at(s.at, `bridge "${s.name}" is not a bridge in src/catalogue/changes/bridges.ts`); break; }
      if (!Object.hasOwn(b.actions, s.action)) at(s.at, `bridge ${s.name} has no action "${s.action}" (valid: ${Object.keys(b.actions).join(', ')})`);
      const via = moveTargetAt(service, s.via, c.index);
      if (!via) at(s.at, `bridge ${s.name} goes via ${s.via}, which does not exist at ${c.release} nor after it`);
      const idField = s.action === 'close' ? bridgeSubscriptionIdField(service, s.name) : undefined;
      if (via && idField && !via.parameters.some((p) => p.name === idField)) at(s.at, `bridge ${s.name} closes via ${s.via}, which has no parameter "${idField}" (the subscription id its events name: "<subscriptionId>")`);
      if (b.tokens?.includes(s.action) && !s.token) at(s.at, `bridge ${s.name} ${s.action} subscribes with a token: the step must declare it (token: { from, answer, params })`);
      if ((s.token || s.scope) && !b.tokens) at(s.at, `bridge ${s.name} subscribes with its key: it takes no token or scope`);
      if (s.token) checkToken(service, c, s, via, at);
      for (const [k, v] of Object.entries(s.scope ?? {})) {
        const from = placeholderName(v);
        if (from && !names.has(from)) at(s.at, `scope ${k}: "<${from}>" is not a parameter of ${c.operation} at ${x.before}`);
      }
      if (b.feeds.includes(s.action)) {
        if (!c.events) at(s.at, `bridge ${s.name} ${s.action} feeds a stream: the change must declare the event shapes it maps (events: { upstream, client })`);
        else for (const end of ['upstream', 'client'] as const) if (!placeholderPath(c.events[end], 'event')) at(c.events.at, `events.${end} must show where the event sits ("<event>")`);
      }
      break;
    }
    case 'transform': {
      const t = transformNamed(s.name);
      if (!t?.request) at(s.at, `transform "${s.name}" is not a request transform in src/catalogue/changes/transforms.ts`);
      for (const w of t?.writes ?? []) names.add(w);
      break;
    }
  }
}

/** A bridge step's token: its operation exists, its answer shows the token and its expiry, `via` takes the params carrying it, and `scope` names the operation's parameters. */
function checkToken(service: Service, c: Change, s: BridgeStep, via: Endpoint | undefined, at: At): void {
  const token = s.token!;
  const from = moveTargetAt(service, token.from, c.index);
  if (!from) at(s.at, `token from ${token.from}, which does not exist at ${c.release} nor after it`);
  for (const p of ['token', 'expiresAt']) if (!placeholderPath(token.answer, p)) at(s.at, `token.answer must show where "<${p}>" sits in the answer of ${token.from}`);
  if (!Object.values(token.params).includes('<token>')) at(s.at, `token.params must carry "<token>" to ${s.via}`);
  for (const k of Object.keys(token.params)) if (via && !via.parameters.some((p) => p.name === k)) at(s.at, `token.params: ${s.via} has no parameter "${k}"`);
  for (const k of Object.keys(s.scope ?? {})) if (from && !from.parameters.some((p) => p.name === k)) at(s.at, `scope: ${token.from} has no parameter "${k}"`);
}

/** Every unbridgeable entry names an operation (and parameter, values) that exists just before its release, once. */
function checkUnbridgeable(service: Service, problems: Problem[]): void {
  const unb = new Set<string>();
  for (const u of service.changes.unbridgeable) {
    if (u.index < 1) continue;
    const before = service.releases[u.index - 1].id;
    const k = `${u.index} ${u.operation} ${u.parameter ?? ''} ${u.values?.join(',') ?? ''}`;
    if (unb.has(k)) problems.push({ ...u.at, message: `unbridgeable ${u.operation} at ${u.release}: declared twice` });
    unb.add(k);
    const ep = endpointAt(service, u.operation, u.index - 1);
    if (!ep) { problems.push({ ...u.at, message: `unbridgeable: touches nothing: ${u.operation} does not exist at ${before}, the release before ${u.release}` }); continue; }
    if (u.values && !u.parameter) problems.push({ ...u.at, message: `unbridgeable ${u.operation}: values need the parameter they belong to` });
    if (u.parameter) {
      const p = ep.parameters.find((x) => x.name === u.parameter && existsAt(x.span, u.index - 1));
      if (!p) problems.push({ ...u.at, message: `unbridgeable ${u.operation}: parameter "${u.parameter}" does not exist at ${before}` });
      const known = p?.enum ? service.enums[p.enum]?.values.filter((v) => existsAt(v.span, u.index - 1)).map((v) => v.value) : undefined;
      for (const v of u.values ?? []) if (known && !known.includes(v)) problems.push({ ...u.at, message: `unbridgeable ${u.operation}: ${u.parameter}=${v} is not a value at ${before}` });
    }
    if (!u.parameter && !u.replacement && !ep.replacement && existsAt(ep.span, u.index)) {
      problems.push({ ...u.at, message: `unbridgeable ${u.operation}: the operation still exists at ${u.release}; say which values or parameter cannot be carried` });
    }
  }
}

/** The field a bridge's upstream events name the subscription by, from the events of a change it feeds. */
function bridgeSubscriptionIdField(service: Service, bridge: string): string | undefined {
  for (const c of service.changes.changes) {
    const field = c.events && c.request.some((s) => s.kind === 'bridge' && s.name === bridge) ? subscriptionIdField(c.events.upstream) : undefined;
    if (field) return field;
  }
  return undefined;
}

/** Compose every plan a change takes part in and report what could not be valid at the upstream's release. */
function checkPlans(service: Service, u: number, problems: Problem[]): void {
  const reported = new Set<string>();
  for (const c of service.changes.changes) {
    if (c.index < 1 || c.index > u) continue;
    const ep = endpointAt(service, c.operation, c.index - 1);
    if (!ep) continue;
    // A plan can only differ between releases where the operation, its parameters or its declarations change.
    const starts = new Set([ep.span.added, c.index - 1, ...declaredAt(service, c.operation).map((r) => r - 1)]);
    for (const p of ep.parameters) for (const r of [p.span.added, p.span.removed ?? 0]) { starts.add(r); starts.add(r - 1); }
    for (const s of starts) {
      if (s < ep.span.added || s >= c.index) continue;
      const plan = composePlan(service, c.operation, s, u);
      for (const m of plan?.problems ?? []) {
        if (reported.has(m)) continue;
        reported.add(m);
        problems.push({ ...c.at, message: `change ${c.id}: plan ${m}` });
      }
    }
  }
}

