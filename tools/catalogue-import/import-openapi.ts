// Import the endpoints of an OpenAPI 3 description into a service's catalogue.
//
//   node dist/tools/catalogue-import/import-openapi.js <spec.yaml|json> <serviceDir> [--module <name>] [--dry-run]
//
// A service folder without service.yaml gets one first: id = folder name, title, kind proxy, the
// upstream from `servers`, the {error} envelope, the API-key header of an apiKey scheme and, as
// signedParameters, the parameters every signing operation takes.
//
// Every operation whose "METHOD /path" is not yet in <serviceDir>/endpoints/*.yaml is appended to
// endpoints/<module>.yaml (--module) or endpoints/<slug of its first OpenAPI tag>.yaml, with its
// summary, security (SIGNED when it takes a `signature` parameter, API_KEY when an apiKey scheme is
// required, else NONE), path, query and header parameters and form-body fields with their schema
// (type, enum, minimum, maximum, pattern), the fields of an object JSON body as `in: body` parameters
// (another JSON body as `body:`) and `source: openapi <file>` (entry.ts). Parameters the
// service adds by itself (service.yaml security.signedParameters on SIGNED endpoints,
// commonParameters, the API-key header) are left out.
//
// Existing YAML is never rewritten: new entries are appended to the `endpoints` list of the file
// through the `yaml` Document API, so hand-written entries keep their order, comments and content.
// It writes no lifecycle fields (added/removed): `npm run catalogue -- import` (release-import.ts) does,
// one release at a time.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { Document, isSeq, parseDocument, YAMLSeq } from 'yaml';
import { command } from '../../src/cli/run-tool.js';
import { parseYamlData } from '../../src/catalogue/yaml-file.js';
import { cacheDirFrom } from '../../src/config.js';
import { printable } from '../../src/printable.js';
import { entryOf, serviceDefaults } from './entry.js';
import { catalogueSchema, readOpenApi, slug, type OpenApiDocument } from './openapi.js';
import { readingInput, SOURCE_LIMITS, type SourceLimits } from './source-file.js';

export interface ImportOptions {
  /** Put every new endpoint in endpoints/<module>.yaml instead of one file per OpenAPI tag. */
  module?: string;
  /** Report what would be added without writing anything. */
  dryRun?: boolean;
  /** Bounds on the description file (source-file.ts; default SOURCE_LIMITS). */
  limits?: SourceLimits;
}

export interface ImportResult {
  /** "METHOD /path" of every endpoint appended (or that would be, with dryRun). */
  added: string[];
  /** "METHOD /path: reason" of every operation left out. */
  skipped: string[];
  /** "METHOD /path: what was not imported as written" (also written as the entry's note). */
  warnings: string[];
  /** True when service.yaml was written (or would be, with dryRun). */
  createdService: boolean;
}

/** "METHOD /path" of every endpoint already written in the service's endpoints/*.yaml. */
export function existingEndpointKeys(serviceDir: string): Set<string> {
  const dir = join(serviceDir, 'endpoints');
  const keys = new Set<string>();
  if (!existsSync(dir)) return keys;
  // Through the catalogue tools' cache folder, like their loads: a file read before is not parsed again.
  const cacheDir = cacheDirFrom();
  for (const name of readdirSync(dir).filter((n) => /\.ya?ml$/.test(n))) {
    const data = parseYamlData(readFileSync(join(dir, name), 'utf8'), cacheDir) as { endpoints?: { method?: string; path?: string }[] } | null;
    for (const e of data?.endpoints ?? []) if (e?.method && e?.path) keys.add(`${e.method} ${e.path}`);
  }
  return keys;
}

/**
 * service.yaml for a folder that has none, from the OpenAPI document: what lint needs (id, title,
 * kind) and what the gateway needs to forward and to check keys.
 */
export function serviceFromOpenApi(spec: OpenApiDocument, id: string, specName: string): Record<string, unknown> {
  const service: Record<string, unknown> = { id, title: spec.title?.trim() || id, source: `openapi ${specName}`, kind: 'proxy' };
  const server = spec.servers.find((u) => /^https?:\/\//.test(u));
  if (server) service.upstreams = { rest: new URL(server).origin };
  service.errors = { envelope: 'error' };
  const security: Record<string, unknown> = {};
  const header = Object.values<any>(spec.securitySchemes).find((s) => s?.type === 'apiKey' && s.in === 'header');
  if (header?.name) security.apiKeyHeader = header.name;
  // What every signing operation takes (timestamp, signature…) is the service's, added by the signer.
  const signing = spec.operations.filter((op) => op.parameters.some((p) => p.name === 'signature'));
  if (header?.name && signing.length) {
    const common = signing[0].parameters.filter((p) => p.in === 'query' && signing.every((op) => op.parameters.some((q) => q.name === p.name && q.in === 'query')));
    security.signedParameters = common.map((p) => ({
      name: p.name, ...(p.required ? { required: true } : {}), ...(p.description ? { description: p.description.trim() } : {}), schema: catalogueSchema(p.schema),
    }));
  }
  if (Object.keys(security).length) service.security = security;
  return service;
}

/**
 * Append the OpenAPI operations that `serviceDir` does not have yet to its endpoints/*.yaml.
 * Existing entries are never overwritten or reordered.
 */
export function importOpenApi(specFile: string, serviceDir: string, opts: ImportOptions = {}): ImportResult {
  const spec = readingInput(specFile, 'an OpenAPI 3 description', () => readOpenApi(specFile, opts.limits ?? SOURCE_LIMITS));
  const specName = basename(specFile);
  const serviceFile = join(serviceDir, 'service.yaml');
  const createdService = !existsSync(serviceFile);
  const service = createdService
    ? serviceFromOpenApi(spec, basename(resolve(serviceDir)), specName)
    : ((parseYamlData(readFileSync(serviceFile, 'utf8'), false) ?? {}) as Record<string, any>);
  const defaults = serviceDefaults(service);
  const existing = existingEndpointKeys(serviceDir);
  const added: string[] = [];
  const skipped: string[] = [];
  const warnings: string[] = [];
  // OpenAPI paths are relative to the server URL; a catalogue path is the whole request path.
  const prefix = serverPath(spec);
  const byFile = new Map<string, { module: string; entries: Record<string, unknown>[] }>();
  const schemas: Record<string, unknown> = {};
  for (const op of spec.operations) {
    const key = `${op.method} ${prefix}${op.path}`;
    if (existing.has(key)) {
      skipped.push(`${key}: already in the catalogue`);
      continue;
    }
    const notes: string[] = [];
    const entry = readingInput(specFile, 'an OpenAPI 3 description', () => entryOf(op, spec, specName, defaults, prefix, { notes, schemas }));
    warnings.push(...notes.map((n) => `${key}: ${n}`));
    if (typeof entry === 'string') {
      skipped.push(`${key}: ${entry}`);
      continue;
    }
    const module = opts.module ?? slug(op.tags[0] ?? 'default');
    const slot = byFile.get(module) ?? { module, entries: [] };
    slot.entries.push(entry);
    byFile.set(module, slot);
    existing.add(key);
    added.push(key);
  }
  const missing = Object.keys(schemas).filter((n) => !service.schemas?.[n]);
  if (createdService && missing.length) service.schemas = schemas;
  else if (missing.length) warnings.push(`service.yaml: body fields refer to #/$defs/${missing.join(', #/$defs/')}, which its schemas: lacks: add them (existing service.yaml is not rewritten)`);
  if (!opts.dryRun) {
    const dir = join(serviceDir, 'endpoints');
    mkdirSync(dir, { recursive: true });
    if (createdService) writeService(serviceFile, service, specName);
    for (const { module, entries } of byFile.values()) appendEndpoints(join(dir, `${module}.yaml`), module, specName, entries);
  }
  return { added, skipped, warnings, createdService };
}

/** The path part of the first http(s) server URL ("https://x.example/v2/" → "/v2"); upstreams.rest keeps the origin. */
export function serverPath(spec: OpenApiDocument): string {
  const server = spec.servers.find((u) => /^https?:\/\//.test(u));
  return server ? new URL(server).pathname.replace(/\/+$/, '') : '';
}

/** The editor line every catalogue file starts with (see catalogue/schema/). */
export const schemaLine = (relativePath: string) => `yaml-language-server: $schema=${relativePath}`;

export function writeService(file: string, service: Record<string, unknown>, specName: string): void {
  writeFileSync(file, serviceText(service, specName));
}

/** The text of a service.yaml written from a description. */
export function serviceText(service: Record<string, unknown>, specName: string): string {
  const doc = new Document(service);
  doc.commentBefore = ` ${schemaLine('../schema/service.schema.json')}\n Written from ${specName} by tools/catalogue-import; check errors (envelope, codes) and upstreams by hand.`;
  return doc.toString({ lineWidth: 0 });
}

/** Append entries to an endpoints file (created when missing) without touching what is there. */
export function appendEndpoints(file: string, module: string, specName: string, entries: Record<string, unknown>[]): void {
  let doc: Document;
  if (existsSync(file)) {
    doc = parseDocument(readFileSync(file, 'utf8'));
    if (doc.errors.length) throw new Error(`${file}: invalid YAML, not touched: ${doc.errors[0].message}`);
    if (!doc.has('endpoints')) doc.set('endpoints', doc.createNode([]));
  } else {
    doc = new Document({ module, source: `openapi ${specName}`, endpoints: [] });
    doc.commentBefore = ` ${schemaLine('../../schema/endpoints.schema.json')}\n Imported from ${specName} by tools/catalogue-import/import-openapi.ts; lifecycle facts: npm run catalogue -- import.`;
  }
  const list = doc.get('endpoints', true);
  if (!isSeq(list)) throw new Error(`${file}: "endpoints" is not a list, not touched`);
  for (const e of entries) (list as YAMLSeq).add(doc.createNode(e));
  writeFileSync(file, doc.toString({ lineWidth: 0 }));
}

function main(argv: string[]): number {
  const positionals = argv.filter((a, i) => !a.startsWith('--') && argv[i - 1] !== '--module');
  const moduleAt = argv.indexOf('--module');
  const dryRun = argv.includes('--dry-run');
  const unknown = argv.filter((a) => a.startsWith('--') && !['--module', '--dry-run'].includes(a));
  if (positionals.length !== 2 || unknown.length || (moduleAt >= 0 && !argv[moduleAt + 1])) {
    console.error(USAGE);
    return 2;
  }
  const [spec, serviceDir] = positionals.map((p) => resolve(p));
  const result = importOpenApi(spec, serviceDir, { module: moduleAt >= 0 ? argv[moduleAt + 1] : undefined, dryRun });
  // Control characters escaped (src/printable.ts): what the description names must not forge a line.
  if (result.createdService) console.log(printable(`${dryRun ? 'would write' : 'wrote'} ${join(serviceDir, 'service.yaml')}`));
  for (const k of result.added) console.log(printable(`${dryRun ? 'would add' : 'added'} ${k}`));
  for (const w of result.warnings) console.log(printable(`note ${w}`));
  const notInCatalogue = result.skipped.filter((s) => !s.endsWith('already in the catalogue'));
  for (const s of notInCatalogue) console.log(printable(`skipped ${s}`));
  console.log(`${result.added.length} endpoint(s) ${dryRun ? 'to add' : 'added'}, ${result.skipped.length - notInCatalogue.length} already in the catalogue, ${notInCatalogue.length} skipped`);
  return 0;
}

const USAGE = 'usage: node dist/tools/catalogue-import/import-openapi.js <spec.yaml|json> <serviceDir> [--module <name>] [--dry-run]';

/** Run when node was started on this file; a refused description is one line and exit 2 (run-tool.ts). */
export const tool = command(import.meta.url, { main, usage: USAGE });
