// The comparison of a description with the catalogue at the release before, and the edits it makes:
// stamps on the entries the catalogue has, new entries, named enums and changes.yaml proposals. Used
// by release-import.ts, which checks the result and writes it.
import { basename } from 'node:path';
import { Document, isMap, isSeq, type YAMLMap } from 'yaml';
import { currentAt, existsAt } from '../../src/catalogue/lifecycle.js';
import type { Endpoint, Parameter, SecurityScheme, Service, Span } from '../../src/catalogue/model.js';
import { SCHEME_RANK } from '../../src/catalogue/scheme-rank.js';
import { isTemplated, shapeOf } from '../../src/catalogue/path-template.js';
import { CatalogueNodes, type Located, type ServiceFiles } from './catalogue-nodes.js';
import { inPaths, type DescOperation, type DescParameter, type Description } from './description.js';
import { schemaLine, serviceFromOpenApi } from './import-openapi.js';
import { slug } from './openapi.js';

export type SourceKind = 'openapi' | 'method-table';
export type AbsentPolicy = 'remove' | 'deprecate';

export interface ReleaseImportReport {
  release: string;
  date: string;
  /** The release compared with (null: the first release of the service). */
  previous: string | null;
  source: string;
  from: SourceKind;
  absent: AbsentPolicy;
  dryRun: boolean;
  createdService: boolean;
  createdRelease: boolean;
  /** "METHOD /path", "param METHOD /path name" (path, query, header), "field METHOD /path name" (JSON body), "enum Name VALUE". */
  added: string[];
  removed: string[];
  deprecated: string[];
  /** "param METHOD /path name": required in the catalogue, optional in the description: the entry ends and an optional one begins at the release. */
  optional: string[];
  /** "field METHOD /path name": optional in the catalogue, required in the description: the entry ends and a required one begins at the release. */
  required: string[];
  /** "METHOD /path: security SIGNED → API_KEY": a security requirement the description relaxes: the stricter entry ends at the release and the laxer one begins. */
  relaxed: string[];
  /** "<item>: <type in the catalogue> → <type in the description>" (the catalogue's schema is kept). */
  retyped: string[];
  /** "<item>: what the catalogue says and what the description says" (the catalogue's fact is kept). */
  differs: string[];
  /** "<item>: why it is not imported". */
  skipped: string[];
  /** changes.yaml entries proposed for review: "unbridgeable <operation> […]" or "change <id>: <operation> → move <to>". */
  proposed: string[];
  /** Operations of the description outside --paths. */
  leftOut: number;
  notes: string[];
  /** Files written (or that would be, with dryRun), relative to the service folder. */
  files: string[];
}

const STAMP_AFTER: Record<'added' | 'deprecated' | 'removed', string[]> = {
  added: ['path', 'name', 'value'],
  deprecated: ['added', 'path', 'name', 'value'],
  removed: ['deprecated', 'added', 'path', 'name', 'value'],
};

export interface Proposal {
  key: string;
  entry: Record<string, unknown>;
  kind: 'change' | 'unbridgeable';
  /** A move: the unbridgeable entry to write instead when the move does not check. */
  fallback?: Record<string, unknown>;
}

interface EnumUse {
  operation: string;
  parameter: string;
  values: string[] | null;
}

const pascal = (s: string) => s.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1)).join('');
const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));

export interface Positions {
  R: string;
  /** Position of the release in the model (-1: not in releases.yaml yet). */
  r: number;
  /** Position of the previous release (-1: none). */
  P: number;
  absent: AbsentPolicy;
  paths?: string[];
  tags?: string[];
}

/** How an operation is matched across releases: method and template shape, so `{id}` → `{issue_id}` is one operation. */
const identity = (method: string, path: string) => `${method} ${shapeOf(path)}`;
/** A parameter's report item: `field` for a JSON body field, else `param`. */
const itemOf = (key: string, p: { name: string; in: string }) => `${p.in === 'body' ? 'field' : 'param'} ${key} ${p.name}`;
const typeOf = (schema: Record<string, unknown> | undefined) => JSON.stringify(schema?.type ?? 'string');

export class Importer {
  readonly proposals: Proposal[] = [];
  private nodes: CatalogueNodes | null;
  private newEntries = new Map<string, Record<string, unknown>[]>();
  private newEnums = new Map<string, { values: string[]; source: string }>();
  /** Parameters new on an endpoint the catalogue has, appended together (its `parameters` list may not exist yet). */
  private newParams = new Map<Endpoint, Record<string, unknown>[]>();
  private enumUses = new Map<string, EnumUse[]>();
  private signed: Set<string>;
  private accepted: string[];
  private common: { name: string; pathPrefix?: string }[];
  private apiKeyHeader?: string;

  constructor(
    private readonly desc: Description,
    private readonly service: Service | null,
    serviceRaw: Record<string, any>,
    private readonly files: ServiceFiles,
    readonly opts: Positions,
    readonly report: ReleaseImportReport,
  ) {
    this.nodes = service ? new CatalogueNodes(service, files) : null;
    const raw = serviceRaw.security ? serviceRaw : desc.openapi ? serviceFromOpenApi(desc.openapi, 'new', '') : serviceRaw;
    this.signed = new Set((raw.security?.signedParameters ?? []).map((p: { name: string }) => p.name));
    this.accepted = (raw.security?.signedParametersAccepted ?? []).map((a: { pathPrefix: string }) => a.pathPrefix);
    this.common = (raw.commonParameters ?? []).map((p: { name: string; pathPrefix?: string }) => ({ name: p.name, pathPrefix: p.pathPrefix }));
    this.apiKeyHeader = raw.security?.apiKeyHeader;
  }

  private get label(): string {
    return this.desc.label;
  }

  /** Exists at the previous release. */
  private atP(span: Span): boolean {
    return this.opts.P >= 0 && existsAt(span, this.opts.P);
  }

  addRelease(date: string): void {
    const entry = { id: this.opts.R, date, source: this.label };
    const file = this.files.get('releases.yaml');
    if (file) {
      if (!isMap(file.doc.contents)) throw new Error('releases.yaml: not a map');
      file.appendItems(file.doc.contents, 'releases', [entry], 'QUOTE_SINGLE');
    } else {
      const doc = new Document({ releases: [entry] });
      doc.commentBefore = ` ${schemaLine('../schema/releases.schema.json')}\n Releases of the upstream, oldest first (npm run catalogue -- import adds one per import).`;
      this.files.create('releases.yaml', doc.toString({ lineWidth: 0, defaultStringType: 'QUOTE_SINGLE', defaultKeyType: 'PLAIN' }));
    }
  }

  run(): void {
    const { report } = this;
    const byKey = new Map<string, Endpoint[]>();
    for (const e of this.service?.endpoints ?? []) byKey.set(identity(e.method, e.path), [...(byKey.get(identity(e.method, e.path)) ?? []), e]);
    const described = new Set<string>();
    for (const op of this.desc.operations) {
      described.add(identity(op.method, op.path));
      const lives = byKey.get(identity(op.method, op.path)) ?? [];
      const live = lives.find((e) => this.atP(e.span));
      if (!live) this.newOperation(op, lives);
      else this.keptOperation(op, live);
    }
    for (const e of this.service?.endpoints ?? []) {
      if (!this.atP(e.span) || described.has(identity(e.method, e.path)) || !this.selected(e)) continue;
      this.absentItem(e.key, e.span, this.nodes!.endpoint(e), e.key, () => this.proposeRemoval(e));
    }
    this.enums();
    this.writeEntries();
    this.writeProposals();
    report.added.sort();
    report.removed.sort();
    report.deprecated.sort();
    report.relaxed.sort();
  }

  /** A catalogue endpoint inside --paths and --tags (its endpoints file is named after its tag, as a new entry's is). */
  private selected(e: Endpoint): boolean {
    const { paths, tags } = this.opts;
    return inPaths(e.path, paths) && (!tags?.length || tags.some((t) => slug(t) === basename(e.at.file).replace(/\.ya?ml$/, '')));
  }

  /** Named schemas the description's body fields refer to that service.yaml lacks: added; one that differs: reported, kept. */
  addSchemas(serviceRaw: Record<string, any>): void {
    const have = (serviceRaw.schemas ?? {}) as Record<string, unknown>;
    const fresh = Object.entries(this.desc.schemas).filter(([name]) => !(name in have));
    for (const [name, schema] of Object.entries(this.desc.schemas)) {
      if (name in have && JSON.stringify(have[name]) !== JSON.stringify(schema)) this.report.differs.push(`schema ${name}: service.yaml's differs from ${this.label}'s`);
    }
    if (!fresh.length) return;
    const file = this.files.get('service.yaml')!;
    if (!isMap(file.doc.contents)) throw new Error('service.yaml: not a map');
    const map = file.doc.get('schemas', true);
    if (isMap(map)) file.addPairs(map as YAMLMap, fresh);
    else file.addPairs(file.doc.contents, [['schemas', Object.fromEntries(fresh)]]);
  }

  // --- operations --------------------------------------------------------------------------------

  private newOperation(op: DescOperation, lives: Endpoint[]): void {
    const { r, R } = this.opts;
    this.report.added.push(op.key);
    if (op.deprecated) this.report.deprecated.push(op.key);
    if (op.parameters === null) this.report.skipped.push(`${op.key}: ${op.parametersNote}`);
    if (r >= 0 && lives.some((e) => e.span.added === r)) return; // written by an earlier run
    const entry: Record<string, any> = { method: op.method, path: op.path, added: R };
    if (op.deprecated) entry.deprecated = R;
    if (op.deprecated && op.replacement) entry.replacement = op.replacement;
    for (const [k, v] of Object.entries(op.entry)) if (!(k in entry) && k !== 'method' && k !== 'path') entry[k] = v;
    if (entry.parameters) {
      entry.parameters = (op.parameters ?? []).map((p) => {
        const pe = this.withNamedEnum(op, p);
        return p.deprecated ? { ...pe, deprecated: R } : pe;
      });
      for (const p of op.parameters ?? []) if (p.deprecated) this.report.deprecated.push(`param ${op.key} ${p.name}`);
    }
    const module = this.moduleFor(op);
    this.newEntries.set(module, [...(this.newEntries.get(module) ?? []), entry]);
  }

  private keptOperation(op: DescOperation, e: Endpoint): void {
    const { r, P } = this.opts;
    const report = this.report;
    const at = this.nodes!.endpoint(e);
    if (r >= 0 && e.span.removed === r) {
      report.differs.push(`${op.key}: removed at ${this.opts.R} in the catalogue; ${this.label} still has it`);
      return;
    }
    this.flagged(op.key, op.deprecated, e.span, at, op.replacement && !e.replacement ? op.replacement : undefined);
    const security = currentAt(e.security, P)?.scheme ?? 'NONE';
    this.keptSecurity(op, e, security);
    if (op.parameters === null) {
      report.skipped.push(`${op.key}: ${op.parametersNote}`);
      return;
    }
    // Same shape, other names ({id} → {issue_id}): one operation; its path parameters are the catalogue's.
    const renamed = e.path !== op.path;
    if (renamed) report.differs.push(`${op.key}: path ${e.path} in the catalogue (the same operation: parameter names differ)`);
    const compared = (where: string) => !renamed || where !== 'path';
    const own = e.parameters.filter((p) => !this.serviceLevel(p.name, p.in, e.path, security) && compared(p.in));
    const described = op.parameters.filter((p) => !this.serviceLevel(p.name, p.in, e.path, security) && compared(p.in));
    const names = new Set(described.map((p) => p.name));
    for (const dp of described) {
      const lives = own.filter((p) => p.name === dp.name);
      const live = lives.find((p) => this.atP(p.span));
      if (!live) this.newParameter(op, e, dp, lives);
      else this.keptParameter(op, e, dp, live, lives);
    }
    for (const p of own) {
      if (!this.atP(p.span) || names.has(p.name)) continue;
      const item = itemOf(op.key, p);
      // A method table's client no longer sends it: still required, every call of that client would be refused.
      if (this.opts.absent === 'deprecate' && p.required) {
        this.absentRequired(e, item, p, own);
        continue;
      }
      const what = p.in === 'body' ? 'body field' : 'parameter';
      this.absentItem(item, p.span, this.nodes!.parameter(p), op.key, () =>
        this.propose(op.key, { release: this.opts.R, operation: op.key, parameter: p.name, reason: `${what} ${p.name} removed in ${this.label}; no replacement named`, source: this.label }));
    }
  }

  /** A description's `deprecated` flag against the catalogue's: stamp, or report the difference. */
  private flagged(item: string, deprecated: boolean, span: Span, at: Located, replacement?: string): void {
    const { r, P, R } = this.opts;
    const since = span.deprecated;
    if (deprecated) {
      if (since !== null && since <= P) return;
      this.report.deprecated.push(item);
      if (r >= 0 && since === r) return;
      this.stamp(at, 'deprecated', `deprecated ${R}: ${this.label}`, replacement);
    } else if (this.desc.kind === 'openapi' && since !== null && since <= (r >= 0 ? r : P)) {
      this.report.differs.push(`${item}: deprecated at ${this.service!.releases[since].id} in the catalogue; ${this.label} does not mark it deprecated`);
    }
  }

  /** Something the previous release has and the description lacks: removed or deprecated (--absent). */
  private absentItem(item: string, span: Span, at: Located, operation: string, propose: () => void): void {
    const { r, P, R, absent } = this.opts;
    if (absent === 'remove') {
      this.report.removed.push(item);
      if (!(r >= 0 && span.removed === r)) this.stamp(at, 'removed', `removed ${R}: ${this.label}`);
      if (!this.declared(operation, item)) propose();
      return;
    }
    if (span.deprecated !== null && span.deprecated <= P) return; // deprecated before
    this.report.deprecated.push(item);
    if (!(r >= 0 && span.deprecated === r)) this.stamp(at, 'deprecated', `deprecated ${R}: absent from ${this.label}`);
  }

  // --- security ----------------------------------------------------------------------------------

  /**
   * The description's security against the catalogue's at the previous release. A laxer one breaks
   * no older request (a call signed for the stricter one still passes), and the stricter one would
   * refuse today's clients: written like a parameter made optional, the stricter entry ends at the
   * release and the laxer one begins (`relaxed`). A stricter one would refuse every older request
   * that lacks it: a `differs` line for a person.
   */
  private keptSecurity(op: DescOperation, e: Endpoint, was: SecurityScheme): void {
    const { r, R } = this.opts;
    const to = this.laxer(op, was);
    if (!to) {
      if (op.security !== undefined && op.security !== was) this.report.differs.push(`${op.key}: security ${was} in the catalogue, ${op.security} in ${this.label}`);
      return;
    }
    const item = `${op.key}: security ${was} → ${to}`;
    const atR = r >= 0 ? currentAt(e.security, r)?.scheme ?? 'NONE' : was;
    // The catalogue already says what the release requires: written by an earlier run, or by hand.
    if (atR !== was) {
      if (atR === to) this.report.relaxed.push(item);
      else this.report.differs.push(`${op.key}: security ${atR} from ${R} in the catalogue, ${to} in ${this.label}`);
      return;
    }
    this.report.relaxed.push(item);
    this.relax(op, e, was, to);
    // Signing parameters the client still sends are the endpoint's no more: --strict would refuse them.
    const sent = (op.parameters ?? []).filter((p) => this.signed.has(p.name)).map((p) => p.name);
    if (sent.length && !this.accepted.some((a) => e.path.startsWith(a))) {
      this.report.notes.push(`${op.key}: ${this.label} sends ${sent.join(', ')}, which ${to} does not take on this path (--strict refuses it): add it to the endpoint or to service.yaml signedParametersAccepted`);
    }
  }

  /**
   * The laxer requirement the description gives, else null. "Not signed" (a method table) lowers
   * SIGNED to API_KEY where the service has a key header, not to NONE: a client that does not sign
   * may still send its key, and the table does not say it sends none.
   */
  private laxer(op: DescOperation, was: SecurityScheme): SecurityScheme | null {
    const unsigned: SecurityScheme | undefined = op.unsigned && was === 'SIGNED' ? (this.apiKeyHeader ? 'API_KEY' : 'NONE') : undefined;
    const stated = op.security ?? unsigned;
    return stated !== undefined && SCHEME_RANK[stated] < SCHEME_RANK[was] ? stated : null;
  }

  /** The requirement in force at the previous release ends at the release; `to` begins there. */
  private relax(op: DescOperation, e: Endpoint, was: SecurityScheme, to: SecurityScheme): void {
    const { R } = this.opts;
    const at = this.nodes!.endpoint(e);
    const why = `${to} from ${R}: ${this.label}`;
    const note = op.security === undefined ? { note: `the client does not sign it; ${to}${to === 'API_KEY' ? ', not NONE: the description does not say it sends no key' : ''}` } : {};
    const begun = { scheme: to, added: R, source: typeof op.entry.source === 'string' ? op.entry.source : this.label, ...note };
    const list = at.map.get('security', true);
    if (!isSeq(list)) {
      at.file.replaceWithList(at.map, 'security', [{ scheme: was, removed: R, source: why }, begun]);
      return;
    }
    // The loader keeps the list's order: the n-th requirement of the model is the n-th item.
    const live = list.items[e.security.findIndex((s) => this.atP(s.span))];
    if (!isMap(live) || live.get('scheme') !== was) throw new Error(`${e.at.file}: ${e.key}: the security list does not hold the ${was} entry the loader read`);
    this.stamp({ file: at.file, map: live }, 'removed', why);
    at.file.appendItems(at.map, 'security', [begun], undefined, 'flow');
  }

  // --- parameters --------------------------------------------------------------------------------

  private newParameter(op: DescOperation, e: Endpoint, dp: DescParameter, lives: Parameter[]): void {
    const { r, R } = this.opts;
    const item = itemOf(op.key, dp);
    this.report.added.push(item);
    if (dp.deprecated) this.report.deprecated.push(item);
    if (r >= 0 && lives.some((p) => p.span.added === r)) return;
    const entry: Record<string, unknown> = { name: dp.name, added: R, ...(dp.deprecated ? { deprecated: R } : {}) };
    for (const [k, v] of Object.entries(this.withNamedEnum(op, dp))) if (!(k in entry)) entry[k] = v;
    entry.source = this.label;
    this.newParams.set(e, [...(this.newParams.get(e) ?? []), entry]);
    // Older requests lack a parameter that is now required: the upstream refuses them all.
    if (dp.required) this.proposeRequired(op, dp, item);
  }

  /** A parameter or body field required from the release: older requests lack it, so the operation is unbridgeable there. */
  private proposeRequired(op: DescOperation, dp: DescParameter, item: string): void {
    const { R } = this.opts;
    if (this.declared(op.key, item)) return;
    const what = dp.in === 'body' ? 'body field' : 'parameter';
    this.propose(op.key, {
      release: R, operation: op.key, replacement: `${op.key} with ${what} ${dp.name} (required from ${R})`,
      reason: `${what} ${dp.name} is required from ${R} (${this.label}); a request made at an older release does not send it`, source: this.label,
    });
  }

  private keptParameter(op: DescOperation, e: Endpoint, dp: DescParameter, p: Parameter, lives: Parameter[]): void {
    const { r, R } = this.opts;
    const item = itemOf(op.key, dp);
    const at = this.nodes!.parameter(p);
    // A body field made required is split like a parameter made optional (the diff then says which).
    const fieldRequired = dp.in === 'body' && p.in === 'body' && dp.required && !p.required;
    if (r >= 0 && p.span.removed === r) {
      // An earlier run wrote this release's entry after the one it ended.
      if (p.required !== dp.required && (p.required || fieldRequired) && this.splitEarlier(p, lives, dp.required)) this.report[dp.required ? 'required' : 'optional'].push(item);
      else this.report.differs.push(`${item}: removed at ${R} in the catalogue; ${this.label} still has it`);
      return;
    }
    this.flagged(item, dp.deprecated, p.span, at);
    if (dp.in !== p.in) this.report.differs.push(`${item}: in ${p.in} in the catalogue, in ${dp.in} in ${this.label}`);
    if (p.required && !dp.required) {
      this.report.optional.push(item);
      this.split(e, at);
    } else if (fieldRequired) {
      this.report.required.push(item);
      this.split(e, at, `required from ${R}: ${this.label}`, { required: true });
      this.proposeRequired(op, dp, item);
    }
    // Optional → required breaks every older request that leaves it out: a person decides (a change or unbridgeable entry).
    else if (dp.required !== p.required) this.report.differs.push(`${item}: ${p.required ? 'required' : 'optional'} in the catalogue, ${dp.required ? 'required' : 'optional'} in ${this.label}`);
    if (dp.typed && typeOf(p.schema) !== typeOf(dp.entry.schema)) this.report.retyped.push(`${item}: ${typeOf(p.schema)} → ${typeOf(dp.entry.schema)}`);
    const inline = Array.isArray(p.schema.enum) ? (p.schema.enum as unknown[]).map(String) : undefined;
    if (p.enum) this.useEnum(p.enum, { operation: op.key, parameter: dp.name, values: dp.values ?? null });
    else if (inline && dp.values && !sameSet(inline, dp.values)) this.report.differs.push(`${item}: values ${inline.join(',')} in the catalogue, ${dp.values.join(',')} in ${this.label}`);
    else if (!inline && dp.values) this.report.differs.push(`${item}: any value in the catalogue; ${this.label} allows ${dp.values.join(',')}`);
    if (p.enum && !dp.values && dp.typed) this.report.differs.push(`${item}: enum ${p.enum} in the catalogue; ${this.label} gives no values`);
  }

  /**
   * A parameter whose `required` changed, written as two lives: the entry ends at the release and one
   * with the same facts begins there. A required parameter made optional breaks nothing (every older
   * request sends it; the diff reports "became optional"); a body field made required comes with an
   * unbridgeable proposal.
   */
  private split(e: Endpoint, at: Located, why = `optional from ${this.opts.R}: ${this.label}`, stamps: Record<string, unknown> = {}): void {
    const { R } = this.opts;
    this.stamp(at, 'removed', why);
    const { name, required: _required, added: _added, deprecated: _deprecated, removed: _removed, replacement: _replacement, note: _note, source: _source, ...facts } = at.map.toJSON() as Record<string, unknown>;
    const required = stamps.required;
    delete stamps.required;
    const { in: where, ...rest } = facts;
    this.newParams.set(e, [...(this.newParams.get(e) ?? []), { name, ...(where ? { in: where } : {}), ...(required ? { required } : {}), added: R, ...stamps, ...rest, source: this.label }]);
  }

  /**
   * A required parameter today's clients no longer send (a method table, --absent deprecate): kept
   * as a deprecated, optional parameter from the release on (the required entry ends there).
   */
  private absentRequired(e: Endpoint, item: string, p: Parameter, lives: Parameter[]): void {
    const { R } = this.opts;
    this.report.deprecated.push(item);
    this.report.optional.push(item);
    if (!this.splitEarlier(p, lives)) this.split(e, this.nodes!.parameter(p), `deprecated and optional from ${R}: absent from ${this.label}`, { deprecated: R });
  }

  /** An earlier run of this import already ended the entry `p` at the release and began one that is (not) `required`. */
  private splitEarlier(p: Parameter, lives: Parameter[], required = false): boolean {
    const { r } = this.opts;
    return r >= 0 && p.span.removed === r && lives.some((q) => q.name === p.name && q.span.added === r && q.required === required);
  }

  /** Service-level parameters (signing, common, the API-key header) are the service's, not the endpoint's. */
  private serviceLevel(name: string, where: string, path: string, security: string): boolean {
    return (this.signed.has(name) && (security === 'SIGNED' || this.accepted.some((a) => path.startsWith(a))))
      || this.common.some((c) => c.name === name && (!c.pathPrefix || path.startsWith(c.pathPrefix)))
      || (where === 'header' && this.apiKeyHeader !== undefined && name.toLowerCase() === this.apiKeyHeader.toLowerCase());
  }

  // --- enums -------------------------------------------------------------------------------------

  /** The parameter entry with a string enum as a named enum (existing, or new in enums.yaml). */
  private withNamedEnum(op: DescOperation, dp: DescParameter): Record<string, unknown> {
    const entry = { ...dp.entry };
    if (!dp.values) return entry;
    const name = this.enumNameFor(op, dp);
    const { enum: _values, ...schema } = entry.schema as Record<string, unknown>;
    delete entry.schema;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(entry)) {
      out[k] = v;
      if (k === 'description' || (k === 'required' && !('description' in entry))) out.enum = name;
    }
    if (!('enum' in out)) out.enum = name;
    if (Object.keys(schema).some((k) => k !== 'type') || (schema.type && schema.type !== 'string')) out.schema = schema;
    if (this.service?.enums[name]) this.useEnum(name, { operation: op.key, parameter: dp.name, values: dp.values });
    else if (!this.newEnums.has(name)) this.newEnums.set(name, { values: dp.values, source: this.label });
    return out;
  }

  private enumNameFor(op: DescOperation, dp: DescParameter): string {
    // A component's name, unless an inline list of this import took it first with other values.
    const first = dp.ref ? this.newEnums.get(pascal(dp.ref)) : undefined;
    if (dp.ref && (!first || sameSet(first.values, dp.values!))) return pascal(dp.ref);
    const taken = (n: string) => !!this.service?.enums[n] || this.newEnums.has(n);
    const seg = pascal(op.path.split('/').filter((s) => s && !/^v\d+$/.test(s) && !isTemplated(s)).at(-1) ?? '');
    const candidates = [pascal(dp.name), seg + pascal(dp.name), pascal(op.method.toLowerCase()) + seg + pascal(dp.name)];
    const free = candidates.find((n) => !taken(n));
    if (free) return free;
    for (let i = 2; ; i++) if (!taken(`${candidates[2]}${i}`)) return `${candidates[2]}${i}`;
  }

  private useEnum(name: string, use: EnumUse): void {
    this.enumUses.set(name, [...(this.enumUses.get(name) ?? []), use]);
  }

  /** Values of the service's named enums the description uses: added, removed, or differing between users. */
  private enums(): void {
    const { r, R } = this.opts;
    for (const [name, uses] of this.enumUses) {
      const def = this.service!.enums[name];
      const given = uses.filter((u) => u.values !== null);
      if (!given.length) continue;
      const union = [...new Set(given.flatMap((u) => u.values!))];
      for (const u of given) if (!sameSet(u.values!, union)) this.report.differs.push(`enum ${name}: ${u.operation} ${u.parameter} allows ${u.values!.join(',')}, other users of the enum ${union.filter((v) => !u.values!.includes(v)).join(',')} too; the enum keeps them all`);
      const alive = def.values.filter((v) => this.atP(v.span));
      const fresh: Record<string, unknown>[] = [];
      for (const v of union) {
        if (alive.some((x) => x.value === v)) continue;
        this.report.added.push(`enum ${name} ${v}`);
        if (!(r >= 0 && def.values.some((x) => x.value === v && x.span.added === r))) fresh.push({ value: v, added: R, source: this.label });
      }
      if (fresh.length) {
        const { file, map } = this.nodes!.enumMap(name);
        file.appendItems(map, 'values', fresh);
      }
      const gone = alive.filter((v) => !union.includes(v.value));
      if (!gone.length) continue;
      // Every user of the enum at the previous release must be described, or a value is not proven gone.
      const users = this.enumUsers(name);
      const unseen = users.filter((u) => !given.some((g) => g.operation === u.operation && g.parameter === u.parameter));
      if (unseen.length) {
        this.report.differs.push(`enum ${name}: ${gone.map((v) => v.value).join(',')} not in ${this.label}, but ${unseen.map((u) => `${u.operation} ${u.parameter}`).join('; ')} (not described) still use the enum: kept`);
        continue;
      }
      for (const v of gone) {
        this.absentItem(`enum ${name} ${v.value}`, v.span, this.nodes!.value(name, v), '', () => undefined);
      }
      if (this.opts.absent !== 'remove') continue;
      for (const u of users) {
        const values = gone.map((v) => v.value);
        if (this.declared(u.operation, `enum ${name}`, u.parameter)) continue;
        this.propose(u.operation, { release: R, operation: u.operation, parameter: u.parameter, values, reason: `values removed in ${this.label}; no replacement named`, source: this.label });
      }
    }
  }

  /** Endpoint parameters that use a named enum at the previous release. */
  private enumUsers(name: string): { operation: string; parameter: string }[] {
    const out: { operation: string; parameter: string }[] = [];
    for (const e of this.service!.endpoints) {
      if (!this.atP(e.span)) continue;
      for (const p of e.parameters) if (p.enum === name && this.atP(p.span)) out.push({ operation: e.key, parameter: p.name });
    }
    return out;
  }

  // --- writing -----------------------------------------------------------------------------------

  /** Add a lifecycle fact to an item, with its source (appended to the item's own source, if it has one). */
  private stamp(at: Located, kind: 'deprecated' | 'removed', source: string, replacement?: string): void {
    const pairs: [string, unknown][] = [[kind, this.opts.R]];
    if (replacement) pairs.push(['replacement', replacement]);
    const own = at.map.get('source');
    if (typeof own === 'string') {
      if (!own.includes(source)) at.file.replaceScalar(at.map, 'source', `${own}; ${source}`);
    } else pairs.push(['source', source]);
    at.file.addPairs(at.map, pairs, STAMP_AFTER[kind]);
  }

  /**
   * The module (endpoints file) of a new operation: that of the catalogue's endpoints nearest its
   * path, else the description's. Only static segments count: every GitHub path under
   * `/repos/{owner}/{repo}` would otherwise land in one file whatever its tag.
   */
  private moduleFor(op: DescOperation): string {
    const segs = op.path.split('/');
    let best = { n: 2, module: op.module };
    for (const [other, module] of this.modulePaths) {
      let n = 0;
      while (n < segs.length && n < other.length && segs[n] === other[n] && !isTemplated(segs[n])) n++;
      if (n - 1 > best.n) best = { n: n - 1, module };
    }
    this.modulePaths.push([segs, best.module]);
    return best.module;
  }

  /** Path segments of every endpoint, with its module file: the catalogue's, then the new ones. */
  private get modulePaths(): [string[], string][] {
    this.paths ??= (this.service?.endpoints ?? []).map((e) => [e.path.split('/'), basename(e.at.file).replace(/\.ya?ml$/, '')]);
    return this.paths;
  }

  private paths?: [string[], string][];

  private writeEntries(): void {
    for (const [e, entries] of this.newParams) {
      const { file, map } = this.nodes!.endpoint(e);
      file.appendItems(map, 'parameters', entries);
    }
    for (const [module, entries] of this.newEntries) {
      const rel = `endpoints/${module}.yaml`;
      const file = this.files.get(rel);
      if (file) {
        if (!isMap(file.doc.contents)) throw new Error(`${rel}: not a map`);
        file.appendItems(file.doc.contents, 'endpoints', entries);
      } else {
        const doc = new Document({ module, source: this.label, endpoints: entries });
        doc.commentBefore = ` ${schemaLine('../../schema/endpoints.schema.json')}\n Imported by npm run catalogue -- import (tools/catalogue-import/release-import.ts).`;
        this.files.create(rel, doc.toString({ lineWidth: 0 }));
      }
    }
    if (!this.newEnums.size) return;
    const enums = Object.fromEntries([...this.newEnums].map(([name, e]) => [name, { source: e.source, values: e.values.map((value) => ({ value })) }]));
    const file = this.files.get('enums.yaml');
    if (file) {
      const map = file.doc.get('enums', true);
      if (!isMap(map)) throw new Error('enums.yaml: "enums" is not a map');
      file.addPairs(map as YAMLMap, Object.entries(enums));
    } else {
      const doc = new Document({ source: this.label, enums });
      doc.commentBefore = ` ${schemaLine('../schema/enums.schema.json')}\n Named enums: each value has its own lifecycle (added, removed), checked at the pinned release.`;
      this.files.create('enums.yaml', doc.toString({ lineWidth: 0 }));
    }
  }

  /** Is a breaking event at R of `operation` already bridged or declared (by hand or an earlier run)? */
  private declared(operation: string, item: string, parameter?: string): boolean {
    const { r } = this.opts;
    if (r < 0 || !this.service) return false;
    const param = parameter ?? (/^(param|field) /.test(item) ? item.split(' ').at(-1) : undefined);
    const { changes, unbridgeable } = this.service.changes;
    if (changes.some((c) => c.index === r && c.operation === operation)) return true;
    return unbridgeable.some((u) => u.index === r && u.operation === operation && (!u.parameter || u.parameter === param));
  }

  private proposeRemoval(e: Endpoint): void {
    const { R } = this.opts;
    const replacement = e.replacement;
    const unbridgeable = {
      release: R, operation: e.key, ...(replacement ? { replacement } : {}),
      reason: replacement ? `removed in ${this.label}; ${replacement} replaces it` : `removed in ${this.label}; no replacement named`, source: this.label,
    };
    const target = replacement && /^(GET|POST|PUT|DELETE|PATCH) \/\S*$/.test(replacement) ? replacement : undefined;
    if (target && this.desc.operations.some((o) => o.key === target)) {
      this.proposals.push({
        key: e.key, kind: 'change', fallback: unbridgeable,
        entry: { id: slug(`${R} ${e.path} moved`), release: R, operation: e.key, summary: `moved to ${target} (proposed by the release import: review it)`, source: this.label, request: [{ move: target }] },
      });
    } else this.propose(e.key, unbridgeable);
  }

  private propose(key: string, entry: Record<string, unknown>): void {
    if (this.proposals.some((p) => p.key === key && p.kind === 'unbridgeable' && !p.entry.parameter && !entry.parameter)) return;
    this.proposals.push({ key, kind: 'unbridgeable', entry });
  }

  /** changes.yaml with the proposals appended (written again from the file as it was when a proposal is revised). */
  writeProposals(): void {
    const rel = 'changes.yaml';
    this.files.forget(rel);
    const changes = this.proposals.filter((p) => p.kind === 'change').map((p) => p.entry);
    const unbridgeable = this.proposals.filter((p) => p.kind === 'unbridgeable').map((p) => p.entry);
    if (!changes.length && !unbridgeable.length) return;
    const file = this.files.get(rel);
    if (file) {
      if (!isMap(file.doc.contents)) throw new Error('changes.yaml: not a map');
      file.appendItems(file.doc.contents, 'changes', changes);
      file.appendItems(file.doc.contents, 'unbridgeable', unbridgeable);
      return;
    }
    const doc = new Document({ ...(changes.length ? { changes } : {}), ...(unbridgeable.length ? { unbridgeable } : {}) });
    doc.commentBefore = ` ${schemaLine('../schema/changes.schema.json')}\n Version changes. Entries proposed by npm run catalogue -- import: review each (a move's parameters, the reason).`;
    this.files.create(rel, doc.toString({ lineWidth: 0 }));
  }
}
