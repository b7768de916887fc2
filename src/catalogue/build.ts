// Build one service of the model from its parsed YAML files, checking schema and cross-references.
import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type {
  BuilderDef, Constraint, Endpoint, EnumDef, KeepAlive, Lifecycle, Parameter, RateLimit, SecurityEntry, Service, Span, Stream, UpstreamAnswer, UpstreamUnknown, Weight, WeightEntry, WsMethod,
} from './model.js';
import { durationSeconds } from './duration.js';
import { currentAt } from './lifecycle.js';
import { listenKeyOf, takesListenKey } from './user-data-streams.js';
import type { Problem } from './problems.js';
import { isReason, REASON_NAMES } from './reasons.js';
import { releaseIdProblem } from './release-id.js';
import { fileValidators } from './file-validators.js';
import { kindOf, KNOWN_FILES, type Kind } from './file-kinds.js';
import { SchemaCheck } from './schema-check.js';
import { bodySchema, parameterSchema } from './validators.js';
import type { ParsedYaml } from './yaml-file.js';
import { readChanges } from './changes/read.js';
import { NO_CHANGES } from './changes/types.js';

/** setTimeout/setInterval's longest delay (2^31 − 1 ms); a longer one fires after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface RawFile extends ParsedYaml {
  /** Path inside the service folder, e.g. "endpoints/market.yaml". */
  path: string;
}

const LIFECYCLE_KEYS = ['added', 'deprecated', 'removed'] as const;

function schemaMessage(e: ErrorObject, data: unknown): string {
  const where = e.instancePath ? `${e.instancePath.slice(1).replaceAll('/', '.')}: ` : '';
  if (e.propertyName !== undefined) {
    const allowed = (e.params as { allowedValues?: unknown[] }).allowedValues;
    return `${where}unknown key "${e.propertyName}"${allowed ? `; valid: ${allowed.map(String).join(', ')}` : ` (${e.message})`}`;
  }
  if (e.keyword === 'additionalProperties') return `${where}unknown field "${(e.params as { additionalProperty: string }).additionalProperty}"`;
  if (e.keyword === 'required') return `${where}missing required field "${(e.params as { missingProperty: string }).missingProperty}"`;
  if (e.keyword === 'enum') return `${where}must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map(String).join(', ')}`;
  // A pattern or length refused: name the value too (JSON-quoted, so a control character shows as its escape).
  if (/^(pattern|maxLength|minLength)$/.test(e.keyword)) {
    const value = pointerPath(e.instancePath).reduce<any>((o, k) => (o && typeof o === 'object' ? o[k] : undefined), data);
    if (typeof value === 'string') return `${where}${e.message} (got ${JSON.stringify(clipped(value))})`;
  }
  return `${where}${e.message}`;
}

const clipped = (s: string) => (s.length > 64 ? `${s.slice(0, 64)}…` : s);

/** "/endpoints/3/path" → ['endpoints', 3, 'path'] */
function pointerPath(pointer: string): (string | number)[] {
  return pointer.split('/').slice(1).map((s) => (/^\d+$/.test(s) ? Number(s) : s.replaceAll('~1', '/').replaceAll('~0', '~')));
}

/**
 * A copy of a file's data without the items schema errors point into: the first list item on the
 * error's path (an endpoint, a release, a parameter of service.yaml…), or the unknown field or key
 * itself, or else the faulty value. List items become holes, not removals, so the remaining items
 * keep their index and lineOf() still finds them; the builder skips holes.
 */
function withoutFaultyItems(data: unknown, errors: ErrorObject[]): unknown {
  const copy = structuredClone(data);
  for (const e of errors) {
    if (e.keyword === 'propertyNames') continue; // its inner errors name the key (propertyName)
    const path = pointerPath(e.instancePath);
    const field = (e.params as { additionalProperty?: string }).additionalProperty ?? e.propertyName;
    const firstItem = path.findIndex((k) => typeof k === 'number');
    const cut = firstItem >= 0 ? path.slice(0, firstItem + 1)
      : field !== undefined ? [...path, field]
      : MAPS_OF_ITEMS.has(String(path[0])) && path.length >= 2 ? path.slice(0, 2)
      : path;
    if (cut.length === 0) continue; // the file itself is wrong (missing field, wrong type): re-validation drops it
    const parent = cut.slice(0, -1).reduce<any>((o, k) => (o && typeof o === 'object' ? o[k] : undefined), copy);
    if (parent && typeof parent === 'object') delete parent[cut[cut.length - 1]];
  }
  return copy;
}

/** Top-level fields that map names to items (an enum, a placeholder, a named schema). */
const MAPS_OF_ITEMS = new Set(['enums', 'placeholders', 'schemas']);

/** A list without the holes withoutFaultyItems() left (map() keeps holes, filter() drops them). */
const dense = <T>(list: T[]): T[] => list.filter(() => true);

/** The data with list holes closed, to re-check the shape of what is left. */
function compact(data: unknown): unknown {
  if (Array.isArray(data)) return data.filter(() => true).map(compact);
  if (data && typeof data === 'object') return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, compact(v)]));
  return data;
}

export function buildService(
  id: string, raw: RawFile[], schema: Record<string, unknown>, problems: Problem[], warnings: Problem[], cacheDir: string | false = false,
): Service | null {
  const v = fileValidators(schema, cacheDir);
  const byKind = new Map<Kind, RawFile[]>();
  for (const f of raw) {
    const kind = kindOf(f.path);
    if (!kind) {
      warnings.push({ file: f.file, line: 1, message: `not a catalogue file name (expected ${KNOWN_FILES}); ignored` });
      continue;
    }
    const validate = v[kind];
    if (!validate(f.data)) {
      const errors = validate.errors ?? [];
      for (const e of errors) {
        if (e.keyword === 'oneOf' || e.keyword === 'if' || e.keyword === 'propertyNames') continue; // the other errors say more
        const path = pointerPath(e.instancePath);
        // Point at the offending field itself when there is one (unknown field or key), else at the value.
        const field = (e.params as { additionalProperty?: string }).additionalProperty ?? e.propertyName;
        if (field !== undefined) path.push(field);
        problems.push({ file: f.file, line: f.lineOf(path), message: schemaMessage(e, f.data) });
      }
      // Keep checking the rest of the file: a schema error in one item must not hide a broken
      // cross-reference in another. The faulty items are left out; if what remains still breaks
      // the file's shape, the whole file is.
      const kept = withoutFaultyItems(f.data, errors);
      if (!validate(compact(kept))) continue;
      f.data = kept;
    }
    byKind.set(kind, [...(byKind.get(kind) ?? []), f]);
  }
  const serviceFile = byKind.get('service')?.[0];
  if (!serviceFile) {
    const any = raw[0];
    if (any) problems.push({ file: any.file.replace(/[^/]*$/, 'service.yaml'), line: 0, message: `service folder "${id}" has no valid service.yaml` });
    return null;
  }
  return new ServiceBuilder(id, byKind, problems, warnings, cacheDir).build(serviceFile);
}

class ServiceBuilder {
  private releaseIndex = new Map<string, number>();
  private svc!: Service;
  /** Schemas compiled once every enum is known (a parameter's schema takes its enum's values). */
  private paramSchemas: { f: RawFile; path: (string | number)[]; p: Parameter; owner: string }[] = [];
  private bodies: { f: RawFile; path: (string | number)[]; e: Endpoint }[] = [];
  private schemaCheck: SchemaCheck;

  constructor(
    private id: string,
    private files: Map<Kind, RawFile[]>,
    private problems: Problem[],
    private warnings: Problem[],
    cacheDir: string | false,
  ) {
    this.schemaCheck = new SchemaCheck(cacheDir);
  }

  private problem(f: RawFile, path: (string | number)[], message: string) {
    this.problems.push({ file: f.file, line: f.lineOf(path), message });
  }

  build(sf: RawFile): Service {
    const s = sf.data as Record<string, any>;
    if (s.id !== this.id) this.problem(sf, ['id'], `id "${s.id}" must equal the folder name "${this.id}"`);
    const relFile = this.files.get('releases')?.[0];
    const releases = relFile ? this.releases(relFile) : [];
    this.svc = {
      id: this.id, title: s.title, description: s.description, source: s.source, kind: s.kind,
      versioned: !!relFile, releases, upstreams: s.upstreams ?? {},
      errors: { envelope: s.errors?.envelope ?? 'error', codes: s.errors?.codes ?? {} }, rateLimits: [],
      apiKeyHeader: s.security?.apiKeyHeader,
      signedParameters: [], commonParameters: [], schemas: s.schemas ?? {}, builders: dense(s.builders ?? []),
      endpoints: [], enums: {}, placeholders: {}, streams: [], wsMethods: [], changes: NO_CHANGES,
    };
    if (s.upstreamRelease !== undefined) {
      if (this.releaseIndex.has(String(s.upstreamRelease))) this.svc.upstreamRelease = String(s.upstreamRelease);
      else this.problem(sf, ['upstreamRelease'], `upstreamRelease "${s.upstreamRelease}" is not in releases.yaml`);
    }
    if (this.svc.errors.envelope === 'code-msg' && this.svc.errors.codes.unknown === undefined) {
      this.problem(sf, ['errors'], `errors: the code-msg envelope needs codes.unknown (the code of any reason not named)`);
    }
    if (s.errors?.upstreamUnknown) this.svc.errors.upstreamUnknown = this.upstreamUnknown(sf, s.errors.upstreamUnknown);
    const defaultIn = s.kind === 'builder' ? 'body' : 'query';
    this.svc.signedParameters = dense((s.security?.signedParameters ?? []).map((p: any, i: number) =>
      this.parameter(sf, ['security', 'signedParameters', i], p, defaultIn, 'security.signedParameters')));
    this.svc.commonParameters = dense((s.commonParameters ?? []).map((p: any, i: number) =>
      this.parameter(sf, ['commonParameters', i], p, defaultIn, 'commonParameters', true)));
    // Where the upstream reads the signing parameters on every endpoint of a path family (clients
    // sign every /sapi call), they become optional common parameters there, checked by the same schema.
    for (const a of dense<{ pathPrefix: string }>(s.security?.signedParametersAccepted ?? [])) {
      for (const p of this.svc.signedParameters) this.svc.commonParameters.push({ ...p, required: false, pathPrefix: a.pathPrefix });
    }
    this.checkErrorCodes(sf);
    this.checkBuilders(sf);
    for (const f of this.files.get('enums') ?? []) this.enums(f);
    for (const f of this.files.get('streams') ?? []) this.streams(f);
    for (const f of this.files.get('wsApi') ?? []) this.wsApi(f);
    this.checkWebsocketPaths();
    for (const f of this.files.get('endpoints') ?? []) this.endpoints(f, defaultIn);
    this.rateLimits(sf, dense(s.rateLimits ?? []));
    this.checkKeepAlive();
    this.checkParameterEnums();
    this.compileSchemas();
    this.checkEndpointDuplicates();
    this.checkReplacements();
    this.svc.changes = readChanges(this.files.get('changes')?.[0], this.releaseIndex, this.problems);
    return this.svc;
  }

  /** A websocket path that another one routes first would never be reached: each must be its own. */
  private checkWebsocketPaths() {
    const raw = this.svc.streamPaths?.raw;
    const combined = this.svc.streamPaths?.combined;
    const api = this.svc.wsApiPath;
    const clash = (a: string | undefined, b: string | undefined) => a !== undefined && b !== undefined && (a === b || b.startsWith(`${a}/`));
    const streamsFile = this.files.get('streams')?.[0];
    if (streamsFile && (clash(raw, combined) || clash(combined, raw))) {
      this.problem(streamsFile, ['paths'], `paths: raw (${raw}) and combined (${combined}) must be different paths, neither under the other`);
    }
    const apiFile = this.files.get('wsApi')?.[0];
    if (apiFile && (clash(raw, api) || clash(api, raw) || clash(combined, api) || clash(api, combined))) {
      this.problem(apiFile, ['path'], `path ${api} must differ from the stream paths of streams.yaml (${raw}, ${combined}), neither under the other`);
    }
  }

  private releases(f: RawFile) {
    const list = (f.data as { releases: { id: string; date: string; effective?: string; notes?: string; source?: string; note?: string }[] }).releases;
    // index = position among the releases kept (a release with a schema error is left out, and so
    // is an id the gateway could not send, whatever schema the folder brings).
    const safe = dense(list).filter((r) => {
      const problem = releaseIdProblem(r.id);
      if (problem) this.problem(f, ['releases', list.indexOf(r), 'id'], problem);
      return !problem;
    });
    return safe.map((r, index) => {
      const at = list.indexOf(r);
      if (this.releaseIndex.has(r.id)) this.problem(f, ['releases', at, 'id'], `duplicate release id "${r.id}"`);
      this.releaseIndex.set(r.id, index);
      return { ...r, index };
    });
  }

  /** Resolve and check added/deprecated/removed of one item. */
  private span(f: RawFile, path: (string | number)[], item: Record<string, any>, what: string): Span {
    const idx: Record<string, number | null> = { added: null, deprecated: null, removed: null };
    for (const k of LIFECYCLE_KEYS) {
      const id = item[k];
      if (id === undefined) continue;
      if (!this.svc.versioned) {
        this.problem(f, [...path, k], `${what}: "${k}: ${id}" but service ${this.id} has no releases.yaml`);
        continue;
      }
      const i = this.releaseIndex.get(String(id));
      if (i === undefined) this.problem(f, [...path, k], `${what}: ${k} release "${id}" is not in releases.yaml`);
      else idx[k] = i;
    }
    const added = idx.added ?? 0;
    if (idx.removed !== null && idx.removed <= added) {
      this.problem(f, [...path, 'removed'], `${what}: removed (${item.removed}) must come after added (${item.added ?? this.svc.releases[0]?.id})`);
    }
    if (idx.deprecated !== null) {
      if (idx.deprecated < added) this.problem(f, [...path, 'deprecated'], `${what}: deprecated (${item.deprecated}) comes before added (${item.added})`);
      if (idx.removed !== null && idx.deprecated >= idx.removed) this.problem(f, [...path, 'deprecated'], `${what}: deprecated (${item.deprecated}) must come before removed (${item.removed})`);
    }
    return { added, deprecated: idx.deprecated, removed: idx.removed };
  }

  private lifecycle(f: RawFile, path: (string | number)[], item: Record<string, any>, what: string): Lifecycle {
    const out: Lifecycle = { span: this.span(f, path, item, what), at: { file: f.file, line: f.lineOf(path) } };
    for (const k of [...LIFECYCLE_KEYS, 'replacement', 'note', 'source'] as const) {
      if (item[k] !== undefined) out[k] = String(item[k]);
    }
    return out;
  }

  private parameter(
    f: RawFile, path: (string | number)[], p: Record<string, any>, defaultIn: Parameter['in'], owner: string, common = false,
  ): Parameter {
    const param: Parameter = {
      ...this.lifecycle(f, path, p, `parameter ${p.name}`),
      name: p.name, in: p.in ?? defaultIn, required: p.required ?? false, description: p.description,
      schema: p.schema ?? { type: 'string' }, enum: p.enum, pathPrefix: p.pathPrefix,
    };
    if (param.schema.type === 'array') param.style = p.style === undefined ? ['json'] : [p.style].flat();
    else if (p.style !== undefined) {
      this.problem(f, [...path, 'style'], `${owner}: parameter ${p.name}: style applies to list parameters (schema type: array); here the gateway would ignore it`);
    }
    // Fields the runtime would ignore are refused, so what the YAML says is what the gateway does.
    if (p.pathPrefix !== undefined && !common) {
      this.problem(f, [...path, 'pathPrefix'], `${owner}: parameter ${p.name}: pathPrefix only applies to service.yaml commonParameters; here the gateway would ignore it`);
    }
    if (p.enum !== undefined && p.schema?.enum !== undefined) {
      this.problem(f, [...path, 'schema', 'enum'], `${owner}: parameter ${p.name}: schema.enum would be replaced by the values of enum "${p.enum}"; keep one of the two`);
    }
    this.paramSchemas.push({ f, path, p: param, owner });
    return param;
  }

  private security(f: RawFile, path: (string | number)[], sec: unknown, what: string): SecurityEntry[] {
    const list = sec === undefined ? [{ scheme: 'NONE' }] : typeof sec === 'string' ? [{ scheme: sec }] : (sec as any[]);
    const entries = list.map((e: any, i) => ({
      ...this.lifecycle(f, typeof sec === 'object' ? [...path, i] : path, e, `${what} security ${e.scheme}`),
      scheme: e.scheme,
    }));
    this.checkOverlaps(entries, () => 'security', f, `${what}: security requirements overlap`);
    return entries;
  }

  /** Two items with the same key must not exist at the same release. */
  private checkOverlaps<T extends Lifecycle>(items: T[], key: (t: T) => string, f: RawFile | null, message: string) {
    const seen = new Map<string, T[]>();
    for (const it of items) {
      const k = key(it);
      for (const other of seen.get(k) ?? []) {
        const a = it.span, b = other.span;
        const aEnd = a.removed ?? Infinity, bEnd = b.removed ?? Infinity;
        if (a.added < bEnd && b.added < aEnd) {
          this.problems.push({ ...it.at, message: `${message} (${k}, also at ${other.at.file}:${other.at.line})` });
        }
      }
      seen.set(k, [...(seen.get(k) ?? []), it]);
    }
    void f;
  }

  private constraints(list: any[] | undefined): Constraint[] {
    return (list ?? []).map((c) => ({ ...c }));
  }

  private checkConstraintNames(f: RawFile, path: (string | number)[], cons: Constraint[], params: Parameter[], what: string) {
    const names = new Set([...params.map((p) => p.name)]);
    cons.forEach((c, i) => {
      for (const n of c.exclusive) {
        if (!names.has(n)) this.problem(f, [...path, i], `${what}: constraint names parameter "${n}", which the item does not have`);
      }
    });
  }

  private endpoints(f: RawFile, defaultIn: Parameter['in']) {
    const file = f.data as { module: string; endpoints: EndpointInput[] };
    file.endpoints.forEach((e, i) => {
      const path: (string | number)[] = ['endpoints', i];
      const key = `${e.method} ${e.path}`;
      const parameters = (e.parameters ?? []).map((p, j) => this.parameter(f, [...path, 'parameters', j], p as any, defaultIn, key));
      const ep: Endpoint = {
        ...this.lifecycle(f, path, e as Record<string, any>, key),
        service: this.id, module: file.module, method: e.method, path: e.path, key,
        summary: e.summary, tags: e.tags, security: this.security(f, [...path, 'security'], e.security, key),
        parameters, constraints: this.constraints(e.constraints), body: e.body, builder: e.builder,
      };
      if (e.weight !== undefined) Object.assign(ep, this.weights(f, [...path, 'weight'], e.weight, ep));
      this.checkOverlaps(parameters, (p) => p.name, f, `${key}: duplicate parameter`);
      this.checkConstraintNames(f, [...path, 'constraints'], ep.constraints, parameters, key);
      if (e.builder && !this.svc.builders.some((b) => b.name === e.builder)) {
        this.problem(f, [...path, 'builder'], `${key}: builder "${e.builder}" is not declared in service.yaml builders (${this.svc.builders.map((b) => b.name).join(', ') || 'none'})`);
      }
      if (this.svc.kind === 'builder' && !e.builder) this.problem(f, path, `${key}: service ${this.id} is of kind builder, so the endpoint must name a builder`);
      this.checkHonoured(f, path, ep);
      if (ep.body) this.bodies.push({ f, path, e: ep });
      // every span checked: security entries, parameters must lie inside the endpoint's life
      for (const p of [...parameters, ...ep.security]) {
        if (p.span.added < ep.span.added && p.added !== undefined) {
          this.warnings.push({ ...p.at, message: `${key}: ${'name' in p ? `parameter ${(p as Parameter).name}` : 'security'} added (${p.added}) before its endpoint (${ep.added})` });
        }
      }
      this.svc.endpoints.push(ep);
    });
  }

  /**
   * One weight, or a list of weights that follow each other across releases (like security). The
   * one in force at the newest release is `weight`: what the upstream counts today.
   */
  private weights(f: RawFile, path: (string | number)[], raw: number | Record<string, any> | Record<string, any>[], ep: Pick<Endpoint, 'key' | 'parameters'>): { weight?: Weight; weights?: WeightEntry[] } {
    if (!Array.isArray(raw)) return { weight: this.weight(f, path, raw, ep) };
    const weights = raw.map((e, i) => {
      const { added, deprecated, removed, replacement, ...w } = e;
      return { ...this.weight(f, [...path, i], w, ep), ...this.lifecycle(f, [...path, i], e, `${ep.key} weight`) } as WeightEntry;
    });
    this.checkOverlaps(weights, () => 'weight', f, `${ep.key}: weights overlap`);
    return { weight: currentAt(weights, this.svc.releases.length - 1), weights };
  }

  /** The weight in one shape ({ value } or { rules, otherwise }); rules must name the endpoint's parameters, steps ascend. */
  private weight(f: RawFile, path: (string | number)[], raw: number | Record<string, any>, ep: Pick<Endpoint, 'key' | 'parameters'>): Weight {
    if (typeof raw === 'number') return { value: raw, per: 'IP' };
    const w: Weight = { ...raw, per: raw.per ?? 'IP' } as Weight;
    const names = new Set([...ep.parameters.map((p) => p.name), ...this.svc.commonParameters.map((p) => p.name)]);
    if (!raw.rules) return w;
    w.rules = raw.rules.map((r: Record<string, any>, i: number) => {
      if (!names.has(r.parameter)) this.problem(f, [...path, 'rules', i, 'parameter'], `${ep.key}: weight rule names parameter "${r.parameter}", which the endpoint does not have`);
      const measure = r.measure ?? 'present';
      if ((measure === 'value' || measure === 'items') !== (r.steps !== undefined)) {
        this.problem(f, [...path, 'rules', i], `${ep.key}: weight rule on ${r.parameter}: measure ${measure} ${r.steps ? 'takes a weight, not steps' : 'needs steps'}`);
      }
      const bounds = (r.steps ?? []).map((s: { upTo?: number }) => s.upTo ?? Infinity);
      if (bounds.some((b: number, j: number) => j > 0 && b <= bounds[j - 1])) this.problem(f, [...path, 'rules', i, 'steps'], `${ep.key}: weight steps of ${r.parameter} must ascend (upTo ${bounds.join(', ')})`);
      return { ...r, measure };
    });
    return w;
  }

  /**
   * service.yaml rateLimits: one limit per kind and interval at any release; ORDERS name the
   * endpoints that count, which must exist; apiKey counting needs the header that carries the key.
   */
  private rateLimits(sf: RawFile, list: Record<string, any>[]) {
    const all = (sf.data as { rateLimits?: unknown[] }).rateLimits ?? [];
    const keys = new Set([...this.svc.endpoints.map((e) => e.key), ...this.svc.wsMethods.map((m) => `ws-api ${m.name}`)]);
    for (const r of list) {
      const path = ['rateLimits', all.indexOf(r)];
      const what = `rate limit ${r.kind} per ${r.interval}`;
      const limit: RateLimit = {
        ...this.lifecycle(sf, path, r, what), kind: r.kind, interval: r.interval, seconds: durationSeconds(r.interval),
        limit: r.limit, countedBy: r.countedBy, counts: r.counts, pathPrefix: r.pathPrefix, header: r.header,
      };
      (r.counts ?? []).forEach((k: string, i: number) => {
        if (!keys.has(k)) this.problem(sf, [...path, 'counts', i], `${what}: counts names endpoint "${k}", which the catalogue does not have`);
        else if (r.pathPrefix && !k.startsWith('ws-api ') && !k.slice(k.indexOf(' ') + 1).startsWith(r.pathPrefix)) this.problem(sf, [...path, 'counts', i], `${what}: counts names endpoint "${k}", outside its pathPrefix ${r.pathPrefix}`);
      });
      if (r.countedBy === 'apiKey' && !this.svc.apiKeyHeader) {
        this.problem(sf, [...path, 'countedBy'], `${what}: countedBy apiKey needs the API-key header, but service ${this.id} declares no security.apiKeyHeader`);
      }
      this.svc.rateLimits.push(limit);
    }
    this.checkOverlaps(this.svc.rateLimits, (l) => `${l.kind} ${l.interval} ${l.countedBy} ${l.pathPrefix ?? ''}`, sf, 'duplicate rate limit');
  }

  private enums(f: RawFile) {
    const file = f.data as { enums: Record<string, { description?: string; source?: string; note?: string; values: any[] }> };
    for (const [name, def] of Object.entries(file.enums)) {
      if (this.svc.enums[name]) this.problem(f, ['enums', name], `duplicate enum "${name}"`);
      const values = dense(def.values.map((v, i) => ({
        ...this.lifecycle(f, ['enums', name, 'values', i], v, `enum ${name} value ${v.value}`),
        value: String(v.value), description: v.description,
      })));
      this.checkOverlaps(values, (v) => v.value, f, `enum ${name}: duplicate value`);
      this.svc.enums[name] = { name, description: def.description, source: def.source, note: def.note, values } satisfies EnumDef;
    }
  }

  private streams(f: RawFile) {
    const file = f.data as { paths?: { raw: string; combined: string }; placeholders?: Record<string, any>; streams: any[] };
    if (file.paths) this.svc.streamPaths = { raw: file.paths.raw, combined: file.paths.combined };
    Object.assign(this.svc.placeholders, file.placeholders ?? {});
    const streams: Stream[] = dense(file.streams.map((s, i) => ({
      ...this.lifecycle(f, ['streams', i], s, `stream ${s.name}`), name: s.name, description: s.description,
      ...(s.keepAlive && { keepAlive: this.keepAlive(f, ['streams', i, 'keepAlive'], s.name, s.keepAlive) }),
    })));
    this.checkOverlaps(streams, (s) => s.name, f, 'duplicate stream');
    file.streams.forEach((s, i) => {
      for (const m of String(s.name).matchAll(/<([^>]+)>/g)) {
        if (!this.svc.placeholders[m[1]]) this.problem(f, ['streams', i, 'name'], `stream ${s.name}: placeholder <${m[1]}> is not defined in placeholders`);
      }
    });
    for (const [name, ph] of Object.entries(file.placeholders ?? {})) {
      if (ph.enum && !this.svc.enums[ph.enum]) this.problem(f, ['placeholders', name, 'enum'], `placeholder <${name}>: enum "${ph.enum}" does not exist in enums.yaml`);
    }
    this.svc.streams.push(...streams);
  }

  /** A user-data stream's keep-alive: on a listen-key template, more often than the upstream expires the key. */
  private keepAlive(f: RawFile, path: (string | number)[], stream: string, k: Omit<KeepAlive, 'intervalMs'>): KeepAlive {
    const intervalMs = durationSeconds(k.interval) * 1000;
    if (!listenKeyOf(stream)) {
      this.problem(f, path, `stream ${stream}: keepAlive applies to user-data streams (a template that is one placeholder, the listen key); here the gateway would ignore it`);
    } else if (intervalMs > MAX_TIMER_MS) {
      this.problem(f, [...path, 'interval'], `stream ${stream}: keepAlive.interval ${k.interval} is longer than a timer can wait (about 24 days): Node would fire it every millisecond instead`);
    } else if (intervalMs >= durationSeconds(k.expiresAfter) * 1000) {
      this.problem(f, [...path, 'interval'], `stream ${stream}: keepAlive.interval ${k.interval} must be shorter than keepAlive.expiresAfter ${k.expiresAfter}: the upstream would close the stream between two keep-alives`);
    }
    return { ...k, intervalMs };
  }

  /**
   * A user-data stream whose listen key a PUT endpoint keeps alive must say how often (without it the
   * upstream would close the stream under its client), and a keepAlive nothing would send is refused.
   */
  private checkKeepAlive() {
    for (const s of this.svc.streams) {
      const param = listenKeyOf(s.name);
      if (!param) continue;
      const put = this.svc.endpoints.find((e) => e.method === 'PUT' && e.security.some((sec) => takesListenKey(sec.scheme, e.parameters, param)));
      if (put && !s.keepAlive) {
        this.problems.push({ ...s.at, message: `stream ${s.name}: keepAlive missing: ${put.key} keeps its listen key alive, so the stream must say how often and when the upstream expires the key (keepAlive: { interval, expiresAfter }, durations as in rateLimits)` });
      } else if (!put && s.keepAlive) {
        this.problems.push({ ...s.at, message: `stream ${s.name}: keepAlive (interval ${s.keepAlive.interval}): no API_KEY PUT endpoint requires parameter ${param}, so the gateway would never send it` });
      }
    }
  }

  private wsApi(f: RawFile) {
    const file = f.data as { path?: string; methods: any[] };
    if (file.path) this.svc.wsApiPath = file.path;
    const methods: WsMethod[] = dense(file.methods.map((m, i) => {
      const path = ['methods', i];
      const parameters = (m.parameters ?? []).map((p: any, j: number) => this.parameter(f, [...path, 'parameters', j], p, 'query', `websocket method ${m.name}`));
      const wm: WsMethod = {
        ...this.lifecycle(f, path, m, `websocket method ${m.name}`), name: m.name, summary: m.summary,
        security: this.security(f, [...path, 'security'], m.security, `websocket method ${m.name}`),
        parameters, constraints: this.constraints(m.constraints),
      };
      this.checkConstraintNames(f, [...path, 'constraints'], wm.constraints, parameters, `websocket method ${m.name}`);
      if (m.weight !== undefined) Object.assign(wm, this.weights(f, [...path, 'weight'], m.weight, { key: `websocket method ${m.name}`, parameters } as Pick<Endpoint, 'key' | 'parameters'>));
      return wm;
    }));
    this.checkOverlaps(methods, (m) => m.name, f, 'duplicate websocket method');
    this.svc.wsMethods.push(...methods);
  }

  private checkBuilders(sf: RawFile) {
    const seen = new Set<string>();
    (this.svc.builders as BuilderDef[]).forEach((b, i) => {
      if (seen.has(b.name)) this.problem(sf, ['builders', i, 'name'], `duplicate builder "${b.name}"`);
      seen.add(b.name);
    });
  }

  /**
   * Keys of errors.codes must be reasons of the central table: a typo would fall back to codes.unknown.
   * The JSON Schema's propertyNames says the same (for editors); this holds for a schema copy without it.
   */
  private checkErrorCodes(sf: RawFile) {
    for (const key of Object.keys(this.svc.errors.codes)) {
      if (!isReason(key)) this.problem(sf, ['errors', 'codes', key], `errors.codes: unknown key "${key}"; valid: ${REASON_NAMES.join(', ')}`);
    }
  }

  /**
   * errors.upstreamUnknown: the answers by which the upstream says an operation or a parameter does
   * not exist. A code is read from the code-msg envelope only; "no code" alone would match every
   * code-less error, so it needs a status; one answer cannot mean both.
   */
  private upstreamUnknown(sf: RawFile, raw: Record<string, any>): UpstreamUnknown {
    const answers = (kind: 'operation' | 'parameter'): UpstreamAnswer[] => dense((raw[kind] ?? []).map((a: Record<string, any>, i: number): UpstreamAnswer => {
      const path = ['errors', 'upstreamUnknown', kind, i];
      if (typeof a.code === 'number' && this.svc.errors.envelope !== 'code-msg') this.problem(sf, path, `errors.upstreamUnknown.${kind}: a code is read from the code-msg envelope; this service's envelope is ${this.svc.errors.envelope}`);
      if (a.code === 'none' && a.status === undefined) this.problem(sf, path, `errors.upstreamUnknown.${kind}: code none needs a status (else every error answer without a code would count)`);
      return { status: a.status, code: a.code };
    }));
    const out = { operation: answers('operation'), parameter: answers('parameter'), source: String(raw.source ?? '') };
    const key = (a: UpstreamAnswer) => `${a.status ?? '4xx'} ${a.code ?? 'any'}`;
    const ops = new Set(out.operation.map(key));
    out.parameter.forEach((a, i) => {
      if (ops.has(key(a))) this.problem(sf, ['errors', 'upstreamUnknown', 'parameter', i], `errors.upstreamUnknown: answer ${key(a)} is listed under both operation and parameter`);
    });
    return out;
  }

  /** Security the gateway cannot enforce for this endpoint, and other facts it would ignore. */
  private checkHonoured(f: RawFile, path: (string | number)[], ep: Endpoint) {
    for (const sec of ep.security) {
      if (sec.scheme === 'NONE') continue;
      if (!this.svc.apiKeyHeader) {
        this.problems.push({ ...sec.at, message: `${ep.key}: security ${sec.scheme} needs the API-key header the gateway checks, but service ${this.id} declares no security.apiKeyHeader in service.yaml` });
      }
      if (sec.scheme === 'SIGNED' && ep.builder) {
        this.problems.push({ ...sec.at, message: `${ep.key}: security SIGNED on builder endpoint (builder ${ep.builder}): signatures are checked by an upstream, and a builder answers locally; use API_KEY or NONE` });
      }
    }
    if (ep.body && ep.method === 'GET') {
      this.problem(f, [...path, 'body'], `${ep.key}: a GET request has no body; the gateway would never check this body schema`);
    }
    if (ep.body) {
      ep.parameters.forEach((p, j) => {
        if (p.in === 'body') this.problem(f, [...path, 'parameters', j], `${ep.key}: parameter ${p.name} is in: body, but the endpoint's JSON body is described by body:; describe the field there`);
      });
    }
  }

  /** Compile every parameter and body schema as the runtime will (see validators.ts). */
  private compileSchemas() {
    for (const { f, path, p, owner } of this.paramSchemas) {
      // Every value of every release, once: a value removed and added again has two lives.
      const defined = p.enum ? this.svc.enums[p.enum]?.values : undefined;
      const values = defined ? [...new Set(defined.map((v) => v.value))] : undefined;
      const problem = this.schemaCheck.parameter(parameterSchema(p, values));
      if (problem) this.problem(f, [...path, 'schema'], `${owner}: parameter ${p.name}: ${problem}`);
    }
    for (const { f, path, e } of this.bodies) {
      const problem = this.schemaCheck.body(bodySchema(this.svc, e)!);
      if (problem) this.problem(f, [...path, 'body'], `${e.key}: body ${problem}`);
    }
    this.schemaCheck.save();
  }

  private checkParameterEnums() {
    const check = (p: Parameter, owner: string) => {
      if (p.enum && !this.svc.enums[p.enum]) {
        this.problems.push({ ...p.at, message: `${owner}: parameter ${p.name} refers to enum "${p.enum}", which does not exist in enums.yaml` });
      }
    };
    for (const p of [...this.svc.signedParameters, ...this.svc.commonParameters]) check(p, 'service');
    for (const e of this.svc.endpoints) for (const p of e.parameters) check(p, e.key);
    for (const m of this.svc.wsMethods) for (const p of m.parameters) check(p, m.name);
  }

  private checkEndpointDuplicates() {
    this.checkOverlaps(this.svc.endpoints, (e) => e.key, null, 'duplicate endpoint');
  }

  private checkReplacements() {
    const keys = new Set([...this.svc.endpoints.map((e) => e.key), ...this.svc.wsMethods.map((m) => `ws-api ${m.name}`)]);
    for (const e of this.svc.endpoints) {
      if (e.replacement && /^[A-Z]+ \//.test(e.replacement) && !keys.has(e.replacement)) {
        this.warnings.push({ ...e.at, message: `${e.key}: replacement "${e.replacement}" is not an endpoint of the catalogue` });
      }
    }
  }
}

/** An endpoint as written in YAML (already checked against the JSON Schema). */
interface EndpointInput {
  method: string; path: string; summary?: string; tags?: string; security?: unknown;
  parameters?: Record<string, unknown>[]; constraints?: Constraint[]; body?: Record<string, unknown>; builder?: string;
  weight?: number | Record<string, unknown>;
  added?: string; deprecated?: string; removed?: string; replacement?: string; note?: string; source?: string;
}
