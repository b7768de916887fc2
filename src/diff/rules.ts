// The policy: each neutral delta gets a stable rule id, a severity and a message. Every rule id
// has exactly one severity, so --ignore <rule-id> and --fail-on compose predictably.
//   breaking: something a client pinned to <from> could rely on is gone or stricter at <to>
//   warning:  deprecations (still served, going away)
//   info:     everything else (additions, relaxations)
import type { Parameter, SecurityScheme } from '../catalogue/model.js';
import { cmp, compareSubjects, type SubjectRef } from './order.js';
import { KINDS, SEVERITIES, type Change, type Delta, type DeltaType, type Kind, type Severity } from './types.js';

export interface Rule {
  id: string;
  severity: Severity;
  kind: Kind;
  type: DeltaType;
  /** Extra condition when two rules share kind and type. */
  when?: (d: Delta) => boolean;
  /** What the rule reports, for documentation (--list-rules). */
  description: string;
  message: (d: Delta) => string;
}

const SCHEME_RANK: Record<SecurityScheme, number> = { NONE: 0, API_KEY: 1, SIGNED: 2 };
const tightened = (d: Delta) => SCHEME_RANK[d.after!] > SCHEME_RANK[d.before!];

const use = (d: Delta) => (d.item?.replacement ? `; use ${d.item.replacement}` : '');
const where = (p: Parameter | undefined) => (p?.in === 'header' ? 'header' : p?.in === 'body' ? 'body field' : 'query parameter');
const param = (d: Delta) => `${where(d.param)} ${d.parameter}`;
const value = (d: Delta) => `value ${d.value} of ${d.subject.type === 'enum' ? `enum ${d.subject.id}` : param(d)}`;

/** Lifecycle rules of the items that are subjects on their own. */
function itemRules(kind: 'endpoint' | 'ws-method' | 'stream', noun: string): Rule[] {
  const a = /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
  return [
    { id: `${kind}-added`, severity: 'info', kind, type: 'added', description: `${a} is added`, message: () => `${noun} added` },
    { id: `${kind}-removed`, severity: 'breaking', kind, type: 'removed', description: `${a} is removed`, message: (d) => `${noun} removed${use(d)}` },
    { id: `${kind}-deprecated`, severity: 'warning', kind, type: 'deprecated', description: `${a} becomes deprecated`, message: (d) => `${noun} deprecated${use(d)}` },
    { id: `${kind}-undeprecated`, severity: 'info', kind, type: 'undeprecated', description: `a deprecated ${noun} is no longer deprecated (downgrades)`, message: () => `${noun} no longer deprecated` },
  ];
}

export const RULES: readonly Rule[] = [
  ...itemRules('endpoint', 'endpoint'),
  { id: 'security-tightened', severity: 'breaking', kind: 'security', type: 'security-changed', when: tightened, description: 'the security requirement becomes stricter (NONE < API_KEY < SIGNED)', message: (d) => `security requirement raised from ${d.before} to ${d.after}` },
  { id: 'security-relaxed', severity: 'info', kind: 'security', type: 'security-changed', when: (d) => !tightened(d), description: 'the security requirement becomes looser', message: (d) => `security requirement lowered from ${d.before} to ${d.after}` },
  { id: 'required-parameter-added', severity: 'breaking', kind: 'parameter', type: 'added', when: (d) => !!d.param?.required, description: 'a required parameter is added', message: (d) => `required ${param(d)} added` },
  { id: 'parameter-added', severity: 'info', kind: 'parameter', type: 'added', when: (d) => !d.param?.required, description: 'an optional parameter is added', message: (d) => `optional ${param(d)} added` },
  { id: 'parameter-removed', severity: 'breaking', kind: 'parameter', type: 'removed', description: 'a parameter is removed (the gateway rejects it from then on)', message: (d) => `${param(d)} removed${use(d)}` },
  { id: 'parameter-became-required', severity: 'breaking', kind: 'parameter', type: 'became-required', description: 'an optional parameter becomes required', message: (d) => `${param(d)} became required` },
  { id: 'parameter-became-optional', severity: 'info', kind: 'parameter', type: 'became-optional', description: 'a required parameter becomes optional', message: (d) => `${param(d)} became optional` },
  { id: 'parameter-deprecated', severity: 'warning', kind: 'parameter', type: 'deprecated', description: 'a parameter becomes deprecated', message: (d) => `${param(d)} deprecated${use(d)}` },
  { id: 'parameter-undeprecated', severity: 'info', kind: 'parameter', type: 'undeprecated', description: 'a deprecated parameter is no longer deprecated (downgrades)', message: (d) => `${param(d)} no longer deprecated` },
  { id: 'enum-value-added', severity: 'info', kind: 'enum-value', type: 'added', description: 'an enum used by parameters gains a value', message: (d) => `${value(d)} added` },
  { id: 'enum-value-removed', severity: 'breaking', kind: 'enum-value', type: 'removed', description: 'an enum used by parameters loses a value', message: (d) => `${value(d)} removed${use(d)}` },
  { id: 'enum-value-deprecated', severity: 'warning', kind: 'enum-value', type: 'deprecated', description: 'an enum value becomes deprecated', message: (d) => `${value(d)} deprecated${use(d)}` },
  { id: 'enum-value-undeprecated', severity: 'info', kind: 'enum-value', type: 'undeprecated', description: 'a deprecated enum value is no longer deprecated (downgrades)', message: (d) => `${value(d)} no longer deprecated` },
  ...itemRules('ws-method', 'websocket-API method'),
  ...itemRules('stream', 'stream'),
];

export const RULE_IDS: readonly string[] = RULES.map((r) => r.id);

export function ruleFor(d: Delta): Rule {
  const rule = RULES.find((r) => r.kind === d.kind && r.type === d.type && (!r.when || r.when(d)));
  if (!rule) throw new Error(`internal: no rule for a ${d.type} ${d.kind}`);
  return rule;
}

/** Classify neutral deltas into changes, in the one deterministic order every format uses. */
export function classify(deltas: readonly Delta[]): Change[] {
  return deltas
    .map((d) => {
      const c = toChange(d);
      return { c, s: subjectOf(c), k: KINDS.indexOf(c.kind) };
    })
    .sort((a, b) => a.k - b.k || compareSubjects(a.s, b.s) || compareRest(a.c, b.c))
    .map((x) => x.c);
}

function toChange(d: Delta): Change {
  const rule = ruleFor(d);
  const { type, id } = d.subject;
  const own = (type === 'ws-method' || type === 'stream') && d.kind === type; // the method or stream itself, not a part of it
  const flip = d.type === 'became-required' ? ['optional', 'required'] : d.type === 'became-optional' ? ['required', 'optional'] : [];
  // Absent fields stay undefined, which JSON.stringify leaves out; the key order is the JSON's.
  return {
    id: rule.id,
    severity: rule.severity,
    kind: d.kind,
    endpoint: type === 'endpoint' ? id : undefined,
    wsMethod: type === 'ws-method' && !own ? id : undefined,
    name: d.parameter ?? (own ? id : undefined),
    enum: type === 'enum' ? id : undefined,
    value: d.value,
    usedBy: d.usedBy,
    before: d.before ?? flip[0],
    after: d.after ?? flip[1],
    release: d.release,
    message: rule.message(d),
  };
}

/** Where a change sits, for grouping: "METHOD /path", or the enum, websocket method or stream name. */
export function subjectOf(c: Change): SubjectRef {
  if (c.endpoint !== undefined) return { type: 'endpoint', id: c.endpoint };
  if (c.wsMethod !== undefined) return { type: 'ws-method', id: c.wsMethod };
  if (c.enum !== undefined) return { type: 'enum', id: c.enum };
  return { type: c.kind === 'stream' ? 'stream' : 'ws-method', id: c.name! };
}

/** Within one kind and subject: by name, value, rule id. */
function compareRest(a: Change, b: Change): number {
  return cmp(a.name ?? '', b.name ?? '') || cmp(a.value ?? '', b.value ?? '') || cmp(a.id, b.id);
}

export function severityRank(s: Severity): number {
  return SEVERITIES.indexOf(s);
}
