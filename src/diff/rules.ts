// The policy: each neutral delta gets a stable rule id, a severity and a message. Every rule id
// has exactly one severity, so --ignore <rule-id> and --fail-on compose predictably.
//   breaking: something a client pinned to <from> could rely on is gone or stricter at <to>
//   warning:  deprecations (still served, going away)
//   info:     everything else (additions, relaxations)
import type { Parameter, SecurityScheme } from '../catalogue/model.js';
import { SCHEME_RANK } from '../catalogue/scheme-rank.js';
import { cmp, compareSubjectOrder, subjectOrder, type SubjectOrder, type SubjectRef } from './order.js';
import { KINDS, SEVERITIES, type Change, type Delta, type DeltaType, type Kind, type Severity } from './types.js';

/** Policy settings some rules read. */
export interface RuleContext {
  /** Releases an endpoint must stay deprecated before its removal (--deprecation-releases). */
  deprecationReleases: number;
}

export const DEFAULT_CONTEXT: RuleContext = { deprecationReleases: 1 };

export interface Rule {
  id: string;
  severity: Severity;
  kind: Kind;
  type: DeltaType;
  /** Extra condition when two rules share kind and type. */
  when?: (d: Delta, ctx: RuleContext) => boolean;
  /**
   * A policy check: reported in addition to the delta's own rule (as oasdiff's sunset checks are),
   * so ignoring or switching it off never hides the change itself.
   */
  policy?: boolean;
  /** What the rule reports, for documentation (--list-rules). */
  description: string;
  message: (d: Delta) => string;
}

const tightened = (d: Delta) => SCHEME_RANK[d.after as SecurityScheme] > SCHEME_RANK[d.before as SecurityScheme];

/** Schema keyword without the array-items prefix. */
const keyword = (d: Delta) => (d.attribute ?? '').replace(/^items\./, '');
const LOWER_BOUNDS = new Set(['minimum', 'exclusiveMinimum', 'minLength', 'minItems']);
const isType = (d: Delta) => keyword(d) === 'type' || keyword(d) === 'format';
/** Every value accepted before still is: a type union gains a member, integer becomes number, or the type or format goes. */
function typeWidened(d: Delta): boolean {
  if (d.after === undefined) return true;
  if (keyword(d) !== 'type' || d.before === undefined) return false;
  const types = (text: string) => [JSON.parse(text) as string | string[]].flat();
  const after = new Set(types(d.after));
  return types(d.before).every((t) => after.has(t) || (t === 'integer' && after.has('number')));
}
const patternChanged = (d: Delta) => keyword(d) === 'pattern' && d.before !== undefined && d.after !== undefined;
/** A bound or pattern added, a lower bound raised or an upper bound lowered: fewer values accepted. */
function boundTightened(d: Delta): boolean {
  if (d.before === undefined) return true;
  if (d.after === undefined) return false;
  const [a, b] = [JSON.parse(d.before) as number, JSON.parse(d.after) as number];
  return LOWER_BOUNDS.has(keyword(d)) ? b > a : b < a;
}
const subjectPart = (d: Delta) => (d.inBody ? `body property ${d.parameter}` : param(d));
const fromTo = (d: Delta) => `from ${d.before ?? 'none'} to ${d.after ?? 'none'}`;
const bodyProp = (d: Delta) => `body property ${d.parameter}`;
const removedEarly = (d: Delta, ctx: RuleContext) => typeof d.deprecatedFor === 'number' && d.deprecatedFor < ctx.deprecationReleases;

const use = (d: Delta) => (d.item?.replacement ? `; use ${d.item.replacement}` : '');
const WHERE: Record<Parameter['in'], string> = { header: 'header', body: 'body field', path: 'path parameter', query: 'query parameter' };
const where = (p: Parameter | undefined) => WHERE[p?.in ?? 'query'];
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
  { id: 'path-parameter-renamed', severity: 'info', kind: 'parameter', type: 'renamed', description: 'a path parameter is renamed: the same operation, the same paths on the wire', message: (d) => `path parameter {${d.before}} renamed {${d.after}} (the same operation)` },
  { id: 'enum-value-added', severity: 'info', kind: 'enum-value', type: 'added', description: 'an enum used by parameters gains a value', message: (d) => `${value(d)} added` },
  { id: 'enum-value-removed', severity: 'breaking', kind: 'enum-value', type: 'removed', description: 'an enum used by parameters loses a value', message: (d) => `${value(d)} removed${use(d)}` },
  { id: 'enum-value-deprecated', severity: 'warning', kind: 'enum-value', type: 'deprecated', description: 'an enum value becomes deprecated', message: (d) => `${value(d)} deprecated${use(d)}` },
  { id: 'enum-value-undeprecated', severity: 'info', kind: 'enum-value', type: 'undeprecated', description: 'a deprecated enum value is no longer deprecated (downgrades)', message: (d) => `${value(d)} no longer deprecated` },
  { id: 'schema-type-widened', severity: 'info', kind: 'schema', type: 'schema-changed', when: (d) => isType(d) && typeWidened(d), description: 'the type of a parameter or body property accepts more (a union gains a member, integer becomes number, the type or format goes)', message: (d) => `${subjectPart(d)}: ${d.attribute} widened ${fromTo(d)}` },
  { id: 'schema-type-changed', severity: 'breaking', kind: 'schema', type: 'schema-changed', when: isType, description: 'the type or format of a parameter or body property narrows or changes (string → integer, a union loses a member)', message: (d) => `${subjectPart(d)}: ${d.attribute} changed ${fromTo(d)}` },
  { id: 'schema-pattern-changed', severity: 'warning', kind: 'schema', type: 'schema-changed', when: patternChanged, description: 'the pattern of a parameter or body property changes (values accepted before may be refused)', message: (d) => `${subjectPart(d)}: ${d.attribute} changed ${fromTo(d)}` },
  { id: 'schema-bound-tightened', severity: 'breaking', kind: 'schema', type: 'schema-changed', when: boundTightened, description: 'a minimum, maximum, length, item count or pattern of a parameter or body property is added or made stricter', message: (d) => `${subjectPart(d)}: ${d.attribute} tightened ${fromTo(d)}` },
  { id: 'schema-bound-relaxed', severity: 'info', kind: 'schema', type: 'schema-changed', when: (d) => !boundTightened(d), description: 'a minimum, maximum, length, item count or pattern of a parameter or body property is removed or relaxed', message: (d) => `${subjectPart(d)}: ${d.attribute} relaxed ${fromTo(d)}` },
  { id: 'request-body-added', severity: 'breaking', kind: 'body', type: 'body-added', when: (d) => d.parameter === undefined, description: 'an endpoint starts to require a request body', message: () => 'request body added' },
  { id: 'request-body-removed', severity: 'warning', kind: 'body', type: 'body-removed', when: (d) => d.parameter === undefined, description: 'an endpoint no longer takes a request body', message: () => 'request body removed' },
  { id: 'body-required-property-added', severity: 'breaking', kind: 'body', type: 'body-added', when: (d) => !!d.required, description: 'a required request-body property is added', message: (d) => `required ${bodyProp(d)} added` },
  { id: 'body-property-added', severity: 'info', kind: 'body', type: 'body-added', description: 'an optional request-body property is added', message: (d) => `optional ${bodyProp(d)} added` },
  { id: 'body-property-removed', severity: 'breaking', kind: 'body', type: 'body-removed', description: 'a request-body property is removed', message: (d) => `${bodyProp(d)} removed${use(d)}` },
  { id: 'body-property-became-required', severity: 'breaking', kind: 'body', type: 'body-became-required', description: 'an optional request-body property becomes required', message: (d) => `${bodyProp(d)} became required` },
  { id: 'body-property-became-optional', severity: 'info', kind: 'body', type: 'body-became-optional', description: 'a required request-body property becomes optional', message: (d) => `${bodyProp(d)} became optional` },
  { id: 'body-property-deprecated', severity: 'warning', kind: 'body', type: 'deprecated', description: 'a request-body field becomes deprecated', message: (d) => `${bodyProp(d)} deprecated${use(d)}` },
  { id: 'body-property-undeprecated', severity: 'info', kind: 'body', type: 'undeprecated', description: 'a deprecated request-body field is no longer deprecated (downgrades)', message: (d) => `${bodyProp(d)} no longer deprecated` },
  { id: 'constraint-added', severity: 'breaking', kind: 'constraint', type: 'added', description: 'parameters become mutually exclusive (a combination accepted before is refused)', message: (d) => `parameters ${d.value} made mutually exclusive` },
  { id: 'constraint-removed', severity: 'info', kind: 'constraint', type: 'removed', description: 'parameters are no longer mutually exclusive', message: (d) => `parameters ${d.value} no longer mutually exclusive` },
  { id: 'answer-status-changed', severity: 'breaking', kind: 'answer', type: 'status-changed', description: 'an operation answers with another HTTP status (declared in changes.yaml)', message: (d) => `answer status ${d.after} where it was ${d.before}` },
  { id: 'answer-field-removed', severity: 'breaking', kind: 'answer', type: 'answer-field-removed', description: 'a field of the answer is gone (declared in changes.yaml)', message: (d) => `answer field ${d.parameter} removed` },
  { id: 'endpoint-weight-changed', severity: 'info', kind: 'weight', type: 'weight-changed', description: "an endpoint's rate-limit weight changes", message: (d) => `weight changed ${fromTo(d)}` },
  { id: 'endpoint-removed-without-deprecation', severity: 'warning', kind: 'endpoint', type: 'removed', policy: true, when: (d) => d.deprecatedFor === null, description: 'policy: an endpoint is removed without having been deprecated first', message: () => 'endpoint removed without being deprecated first' },
  { id: 'endpoint-removed-before-deprecation-period', severity: 'warning', kind: 'endpoint', type: 'removed', policy: true, when: removedEarly, description: 'policy: an endpoint is removed fewer than --deprecation-releases releases after its deprecation', message: (d) => `endpoint removed ${d.deprecatedFor} release(s) after its deprecation` },
  ...itemRules('ws-method', 'websocket-API method'),
  ...itemRules('stream', 'stream'),
];

export const RULE_IDS: readonly string[] = RULES.map((r) => r.id);

/** Policy checks, reported next to the change they judge (see Rule.policy). */
export const POLICY_RULE_IDS: ReadonlySet<string> = new Set(RULES.filter((r) => r.policy).map((r) => r.id));

/** RULES by kind and type, in RULES order: a delta is only ever matched against its own few. */
const BY_DELTA = new Map<string, Rule[]>();
for (const r of RULES) {
  const k = `${r.kind} ${r.type}`;
  BY_DELTA.set(k, [...(BY_DELTA.get(k) ?? []), r]);
}
const candidates = (d: Delta): readonly Rule[] => BY_DELTA.get(`${d.kind} ${d.type}`) ?? [];
const holds = (r: Rule, d: Delta, ctx: RuleContext) => !r.when || r.when(d, ctx);

export function ruleFor(d: Delta, ctx: RuleContext = DEFAULT_CONTEXT): Rule {
  const rule = candidates(d).find((r) => !r.policy && holds(r, d, ctx));
  if (!rule) throw new Error(`internal: no rule for a ${d.type} ${d.kind}`);
  return rule;
}

/** The delta's own rule, then every policy rule it also breaks. */
export function rulesFor(d: Delta, ctx: RuleContext = DEFAULT_CONTEXT): Rule[] {
  return [ruleFor(d, ctx), ...candidates(d).filter((r) => r.policy && holds(r, d, ctx))];
}

/** Classify neutral deltas into changes, in the one deterministic order every format uses. */
export function classify(deltas: readonly Delta[], ctx: RuleContext = DEFAULT_CONTEXT): Change[] {
  const keyed: { c: Change; k: number; s: SubjectOrder }[] = [];
  for (let i = 0; i < deltas.length; i++) {
    const rules = rulesFor(deltas[i], ctx);
    for (let j = 0; j < rules.length; j++) {
      const c = toChange(deltas[i], rules[j]);
      keyed.push({ c, k: KINDS.indexOf(c.kind), s: subjectOrder(subjectOf(c)) });
    }
  }
  // Sort keys computed once per change, not once per comparison.
  return keyed.sort((a, b) => a.k - b.k || compareSubjectOrder(a.s, b.s) || compareRest(a.c, b.c)).map((x) => x.c);
}

function toChange(d: Delta, rule: Rule): Change {
  const { type, id } = d.subject;
  const own = (type === 'ws-method' || type === 'stream') && d.kind === type; // the method or stream itself, not a part of it
  const flip = /became-required$/.test(d.type) ? ['optional', 'required'] : /became-optional$/.test(d.type) ? ['required', 'optional'] : [];
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
    attribute: d.attribute,
    before: d.before ?? flip[0],
    after: d.after ?? flip[1],
    release: d.release,
    releases: d.releases,
    message: rule.message(d),
    at: d.at && { file: d.at.file, line: d.at.line },
    source: d.source ?? d.param?.source ?? d.item?.source,
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
