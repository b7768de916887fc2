// Build one service of the model from its parsed YAML files, checking schema and cross-references.
import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type {
  BuilderDef, Constraint, Endpoint, EnumDef, Lifecycle, Parameter, SecurityEntry, Service, Span, Stream, WsMethod,
} from './model.js';
import type { Problem } from './problems.js';
import type { ParsedYaml } from './yaml-file.js';

export interface RawFile extends ParsedYaml {
  /** Path inside the service folder, e.g. "endpoints/market.yaml". */
  path: string;
}

type Kind = 'service' | 'releases' | 'enums' | 'streams' | 'wsApi' | 'endpoints';
const KIND_OF: Record<string, Kind> = {
  'service.yaml': 'service',
  'releases.yaml': 'releases',
  'enums.yaml': 'enums',
  'streams.yaml': 'streams',
  'ws-api.yaml': 'wsApi',
  'endpoints.yaml': 'endpoints',
};
const LIFECYCLE_KEYS = ['added', 'deprecated', 'removed'] as const;

let validators: Record<Kind, ValidateFunction> | null = null;
let validatorsFor: unknown = null;

function fileValidators(schema: Record<string, unknown>): Record<Kind, ValidateFunction> {
  if (validators && validatorsFor === schema) return validators;
  // Loaded on first use: a start-up served from the JSON cache never checks the schema again.
  const { Ajv2020 } = createRequire(import.meta.url)('ajv/dist/2020') as typeof import('ajv/dist/2020.js');
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  ajv.addSchema(schema, 'catalogue');
  const v = (def: string) => ajv.compile({ $ref: `catalogue#/$defs/${def}` });
  validators = {
    service: v('serviceFile'), releases: v('releasesFile'), enums: v('enumsFile'),
    streams: v('streamsFile'), wsApi: v('wsApiFile'), endpoints: v('endpointsFile'),
  };
  validatorsFor = schema;
  return validators;
}

function schemaMessage(e: ErrorObject): string {
  const where = e.instancePath ? `${e.instancePath.slice(1).replaceAll('/', '.')}: ` : '';
  if (e.keyword === 'additionalProperties') return `${where}unknown field "${(e.params as { additionalProperty: string }).additionalProperty}"`;
  if (e.keyword === 'required') return `${where}missing required field "${(e.params as { missingProperty: string }).missingProperty}"`;
  if (e.keyword === 'enum') return `${where}must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map(String).join(', ')}`;
  return `${where}${e.message}`;
}

export function buildService(
  id: string, raw: RawFile[], schema: Record<string, unknown>, problems: Problem[], warnings: Problem[],
): Service | null {
  const v = fileValidators(schema);
  const byKind = new Map<Kind, RawFile[]>();
  for (const f of raw) {
    const kind = KIND_OF[f.path] ?? (f.path.startsWith('endpoints/') ? 'endpoints' : undefined);
    if (!kind) {
      warnings.push({ file: f.file, line: 1, message: `not a catalogue file name (expected ${Object.keys(KIND_OF).join(', ')} or endpoints/*.yaml); ignored` });
      continue;
    }
    const validate = v[kind];
    if (!validate(f.data)) {
      for (const e of validate.errors ?? []) {
        if (e.keyword === 'oneOf' || e.keyword === 'if') continue; // the branch errors say more
        const path = e.instancePath.split('/').slice(1).map((s) => (/^\d+$/.test(s) ? Number(s) : s.replaceAll('~1', '/').replaceAll('~0', '~')));
        // Point at the offending field itself when there is one (unknown field), else at the value.
        if (e.keyword === 'additionalProperties') path.push((e.params as { additionalProperty: string }).additionalProperty);
        problems.push({ file: f.file, line: f.lineOf(path), message: schemaMessage(e) });
      }
      continue;
    }
    byKind.set(kind, [...(byKind.get(kind) ?? []), f]);
  }
  const serviceFile = byKind.get('service')?.[0];
  if (!serviceFile) {
    const any = raw[0];
    if (any) problems.push({ file: any.file.replace(/[^/]*$/, 'service.yaml'), line: 0, message: `service folder "${id}" has no valid service.yaml` });
    return null;
  }
  return new ServiceBuilder(id, byKind, problems, warnings).build(serviceFile);
}

class ServiceBuilder {
  private releaseIndex = new Map<string, number>();
  private svc!: Service;

  constructor(
    private id: string,
    private files: Map<Kind, RawFile[]>,
    private problems: Problem[],
    private warnings: Problem[],
  ) {}

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
      errors: { envelope: s.errors?.envelope ?? 'error', codes: s.errors?.codes ?? {} },
      apiKeyHeader: s.security?.apiKeyHeader,
      signedParameters: [], commonParameters: [], schemas: s.schemas ?? {}, builders: s.builders ?? [],
      endpoints: [], enums: {}, placeholders: {}, streams: [], wsMethods: [],
    };
    if (this.svc.errors.envelope === 'code-msg' && this.svc.errors.codes.unknown === undefined) {
      this.problem(sf, ['errors'], `errors: the code-msg envelope needs codes.unknown (the code of any reason not named)`);
    }
    const defaultIn = s.kind === 'builder' ? 'body' : 'query';
    this.svc.signedParameters = (s.security?.signedParameters ?? []).map((p: any, i: number) =>
      this.parameter(sf, ['security', 'signedParameters', i], p, defaultIn));
    this.svc.commonParameters = (s.commonParameters ?? []).map((p: any, i: number) =>
      this.parameter(sf, ['commonParameters', i], p, defaultIn));
    this.checkBuilders(sf);
    for (const f of this.files.get('enums') ?? []) this.enums(f);
    for (const f of this.files.get('streams') ?? []) this.streams(f);
    for (const f of this.files.get('wsApi') ?? []) this.wsApi(f);
    for (const f of this.files.get('endpoints') ?? []) this.endpoints(f, defaultIn);
    this.checkParameterEnums();
    this.checkEndpointDuplicates();
    this.checkReplacements();
    return this.svc;
  }

  private releases(f: RawFile) {
    const list = (f.data as { releases: { id: string; date: string; notes?: string; source?: string; note?: string }[] }).releases;
    return list.map((r, index) => {
      if (this.releaseIndex.has(r.id)) this.problem(f, ['releases', index, 'id'], `duplicate release id "${r.id}"`);
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

  private parameter(f: RawFile, path: (string | number)[], p: Record<string, any>, defaultIn: Parameter['in']): Parameter {
    return {
      ...this.lifecycle(f, path, p, `parameter ${p.name}`),
      name: p.name, in: p.in ?? defaultIn, required: p.required ?? false, description: p.description,
      schema: p.schema ?? { type: 'string' }, enum: p.enum, pathPrefix: p.pathPrefix,
    };
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
      const parameters = (e.parameters ?? []).map((p, j) => this.parameter(f, [...path, 'parameters', j], p as any, defaultIn));
      const ep: Endpoint = {
        ...this.lifecycle(f, path, e as Record<string, any>, key),
        service: this.id, module: file.module, method: e.method, path: e.path, key,
        summary: e.summary, tags: e.tags, security: this.security(f, [...path, 'security'], e.security, key),
        parameters, constraints: this.constraints(e.constraints), body: e.body, builder: e.builder,
      };
      this.checkOverlaps(parameters, (p) => p.name, f, `${key}: duplicate parameter`);
      this.checkConstraintNames(f, [...path, 'constraints'], ep.constraints, parameters, key);
      if (e.builder && !this.svc.builders.some((b) => b.name === e.builder)) {
        this.problem(f, [...path, 'builder'], `${key}: builder "${e.builder}" is not declared in service.yaml builders (${this.svc.builders.map((b) => b.name).join(', ') || 'none'})`);
      }
      if (this.svc.kind === 'builder' && !e.builder) this.problem(f, path, `${key}: service ${this.id} is of kind builder, so the endpoint must name a builder`);
      // every span checked: security entries, parameters must lie inside the endpoint's life
      for (const p of [...parameters, ...ep.security]) {
        if (p.span.added < ep.span.added && p.added !== undefined) {
          this.warnings.push({ ...p.at, message: `${key}: ${'name' in p ? `parameter ${(p as Parameter).name}` : 'security'} added (${p.added}) before its endpoint (${ep.added})` });
        }
      }
      this.svc.endpoints.push(ep);
    });
  }

  private enums(f: RawFile) {
    const file = f.data as { enums: Record<string, { description?: string; source?: string; note?: string; values: any[] }> };
    for (const [name, def] of Object.entries(file.enums)) {
      if (this.svc.enums[name]) this.problem(f, ['enums', name], `duplicate enum "${name}"`);
      const values = def.values.map((v, i) => ({
        ...this.lifecycle(f, ['enums', name, 'values', i], v, `enum ${name} value ${v.value}`),
        value: String(v.value), description: v.description,
      }));
      this.checkOverlaps(values, (v) => v.value, f, `enum ${name}: duplicate value`);
      this.svc.enums[name] = { name, description: def.description, source: def.source, note: def.note, values } satisfies EnumDef;
    }
  }

  private streams(f: RawFile) {
    const file = f.data as { placeholders?: Record<string, any>; streams: any[] };
    Object.assign(this.svc.placeholders, file.placeholders ?? {});
    const streams: Stream[] = file.streams.map((s, i) => ({
      ...this.lifecycle(f, ['streams', i], s, `stream ${s.name}`), name: s.name, description: s.description,
    }));
    this.checkOverlaps(streams, (s) => s.name, f, 'duplicate stream');
    streams.forEach((s, i) => {
      for (const m of s.name.matchAll(/<([^>]+)>/g)) {
        if (!this.svc.placeholders[m[1]]) this.problem(f, ['streams', i, 'name'], `stream ${s.name}: placeholder <${m[1]}> is not defined in placeholders`);
      }
    });
    for (const [name, ph] of Object.entries(file.placeholders ?? {})) {
      if (ph.enum && !this.svc.enums[ph.enum]) this.problem(f, ['placeholders', name, 'enum'], `placeholder <${name}>: enum "${ph.enum}" does not exist in enums.yaml`);
    }
    this.svc.streams.push(...streams);
  }

  private wsApi(f: RawFile) {
    const file = f.data as { methods: any[] };
    const methods: WsMethod[] = file.methods.map((m, i) => {
      const path = ['methods', i];
      const parameters = (m.parameters ?? []).map((p: any, j: number) => this.parameter(f, [...path, 'parameters', j], p, 'query'));
      const wm: WsMethod = {
        ...this.lifecycle(f, path, m, `websocket method ${m.name}`), name: m.name, summary: m.summary,
        security: this.security(f, [...path, 'security'], m.security, `websocket method ${m.name}`),
        parameters, constraints: this.constraints(m.constraints),
      };
      this.checkConstraintNames(f, [...path, 'constraints'], wm.constraints, parameters, `websocket method ${m.name}`);
      return wm;
    });
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
    const keys = new Set(this.svc.endpoints.map((e) => e.key));
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
  added?: string; deprecated?: string; removed?: string; replacement?: string; note?: string; source?: string;
}
