// Import the endpoints of an OpenAPI 3 description into a service's catalogue.
//
//   node dist/tools/catalogue-import/import-openapi.js <spec.yaml|json> <serviceDir> [--module <name>] [--dry-run]
//
// Every operation whose "METHOD /path" is not yet in <serviceDir>/endpoints/*.yaml is appended to
// endpoints/<module>.yaml (--module) or endpoints/<slug of its first OpenAPI tag>.yaml, with its
// summary, security (SIGNED when it takes a `signature` parameter, API_KEY when an apiKey scheme is
// required, else NONE), query/header/form-body parameters with their schema (type, enum, minimum,
// maximum) and `source: openapi <file>`. Parameters the service adds by itself (service.yaml
// security.signedParameters on SIGNED endpoints, commonParameters, the API-key header) are left out.
//
// Existing YAML is never rewritten: new entries are appended to the `endpoints` list of the file
// through the `yaml` Document API, so hand-written entries keep their order, comments and content.
// Lifecycle fields (added/removed) are not guessed: add them by hand, the YAML is the source of truth.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Document, isSeq, parse, parseDocument, YAMLSeq } from 'yaml';
import { catalogueSchema, operationSecurity, readOpenApi, slug, type OpenApiOperation } from './openapi.js';

export interface ImportOptions {
  /** Put every new endpoint in endpoints/<module>.yaml instead of one file per OpenAPI tag. */
  module?: string;
  /** Report what would be added without writing anything. */
  dryRun?: boolean;
}

export interface ImportResult {
  /** "METHOD /path" of every endpoint appended (or that would be, with dryRun). */
  added: string[];
  /** "METHOD /path: reason" of every operation left out. */
  skipped: string[];
}

interface ServiceDefaults {
  signed: Set<string>;
  common: { name: string; pathPrefix?: string }[];
  apiKeyHeader?: string;
}

function serviceDefaults(serviceDir: string): ServiceDefaults {
  const file = join(serviceDir, 'service.yaml');
  if (!existsSync(file)) return { signed: new Set(), common: [] };
  const s = (parse(readFileSync(file, 'utf8')) ?? {}) as Record<string, any>;
  return {
    signed: new Set((s.security?.signedParameters ?? []).map((p: { name: string }) => p.name)),
    common: (s.commonParameters ?? []).map((p: { name: string; pathPrefix?: string }) => ({ name: p.name, pathPrefix: p.pathPrefix })),
    apiKeyHeader: s.security?.apiKeyHeader,
  };
}

/** "METHOD /path" of every endpoint already written in the service's endpoints/*.yaml. */
export function existingEndpointKeys(serviceDir: string): Set<string> {
  const dir = join(serviceDir, 'endpoints');
  const keys = new Set<string>();
  if (!existsSync(dir)) return keys;
  for (const name of readdirSync(dir).filter((n) => /\.ya?ml$/.test(n))) {
    const data = parse(readFileSync(join(dir, name), 'utf8')) as { endpoints?: { method?: string; path?: string }[] } | null;
    for (const e of data?.endpoints ?? []) if (e?.method && e?.path) keys.add(`${e.method} ${e.path}`);
  }
  return keys;
}

/** The catalogue entry of one operation, or a reason to skip it. */
function entryOf(op: OpenApiOperation, specName: string, defaults: ServiceDefaults, schemes: Record<string, any>): Record<string, unknown> | string {
  if (/[{}]/.test(op.path)) return 'path parameters are not supported (catalogue paths are static)';
  const security = operationSecurity(op, schemes);
  const leaveOut = (name: string, where: string) =>
    (security === 'SIGNED' && defaults.signed.has(name)) ||
    defaults.common.some((c) => c.name === name && (!c.pathPrefix || op.path.startsWith(c.pathPrefix))) ||
    (where === 'header' && defaults.apiKeyHeader !== undefined && name.toLowerCase() === defaults.apiKeyHeader.toLowerCase());
  const parameters: Record<string, unknown>[] = [];
  for (const p of op.parameters) {
    if (p.in !== 'query' && p.in !== 'header') continue;
    if (leaveOut(p.name, p.in)) continue;
    parameters.push({
      name: p.name,
      ...(p.in === 'header' ? { in: 'header' } : {}),
      ...(p.required ? { required: true } : {}),
      ...(p.description ? { description: p.description.trim() } : {}),
      schema: catalogueSchema(p.schema),
    });
  }
  const entry: Record<string, unknown> = { method: op.method, path: op.path };
  if (op.summary) entry.summary = op.summary.trim();
  entry.source = `openapi ${specName}`;
  if (op.hasRequestBody) entry.note = 'the OpenAPI operation has a request body, which was not imported: describe it under body: or parameters:';
  entry.security = security;
  if (parameters.length) entry.parameters = parameters;
  return entry;
}

/**
 * Append the OpenAPI operations that `serviceDir` does not have yet to its endpoints/*.yaml.
 * Existing entries are never overwritten or reordered.
 */
export function importOpenApi(specFile: string, serviceDir: string, opts: ImportOptions = {}): ImportResult {
  const spec = readOpenApi(specFile);
  const specName = basename(specFile);
  const defaults = serviceDefaults(serviceDir);
  const existing = existingEndpointKeys(serviceDir);
  const added: string[] = [];
  const skipped: string[] = [];
  const byFile = new Map<string, { module: string; entries: Record<string, unknown>[] }>();
  for (const op of spec.operations) {
    const key = `${op.method} ${op.path}`;
    if (existing.has(key)) {
      skipped.push(`${key}: already in the catalogue`);
      continue;
    }
    const entry = entryOf(op, specName, defaults, spec.securitySchemes);
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
  if (!opts.dryRun) {
    const dir = join(serviceDir, 'endpoints');
    mkdirSync(dir, { recursive: true });
    for (const { module, entries } of byFile.values()) appendEndpoints(join(dir, `${module}.yaml`), module, specName, entries);
  }
  return { added, skipped };
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
    doc.commentBefore = ` Imported from ${specName} by tools/catalogue-import/import-openapi.ts; add lifecycle facts by hand.`;
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
    console.error('usage: node dist/tools/catalogue-import/import-openapi.js <spec.yaml|json> <serviceDir> [--module <name>] [--dry-run]');
    return 2;
  }
  const [spec, serviceDir] = positionals.map((p) => resolve(p));
  const result = importOpenApi(spec, serviceDir, { module: moduleAt >= 0 ? argv[moduleAt + 1] : undefined, dryRun });
  for (const k of result.added) console.log(`${dryRun ? 'would add' : 'added'} ${k}`);
  const notInCatalogue = result.skipped.filter((s) => !s.endsWith('already in the catalogue'));
  for (const s of notInCatalogue) console.log(`skipped ${s}`);
  console.log(`${result.added.length} endpoint(s) ${dryRun ? 'to add' : 'added'}, ${result.skipped.length - notInCatalogue.length} already in the catalogue, ${notInCatalogue.length} skipped`);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
