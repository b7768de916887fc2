// Load a catalogue folder: read YAML, check it against the JSON Schema and the cross-file rules,
// and build the typed model. Every problem is collected, so one run reports them all.
// A checked catalogue is cached as JSON keyed by the hash of every file it was built from:
// YAML parsing is slow and start-up should not pay for it when nothing changed.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildService, type RawFile } from './build.js';
import { CatalogueError, type Problem } from './problems.js';
import { parseYamlFile } from './yaml-file.js';
import type { Catalogue } from './model.js';

/** Bump when the model's shape changes, so older caches are ignored. */
const MODEL_VERSION = '1';

export const DEFAULT_CATALOGUE_DIR = fileURLToPath(new URL('../../../catalogue', import.meta.url));
const SCHEMA_FILE = 'schema/catalogue.schema.json';

export interface LoadOptions {
  /** Folder for the JSON cache; false disables it. Default: $GATEWAY_CACHE_DIR or the OS temp folder. */
  cacheDir?: string | false;
}

export interface LoadResult {
  catalogue: Catalogue;
  warnings: Problem[];
  fromCache: boolean;
}

/** Load and check a catalogue; throws CatalogueError listing every problem found. */
export function loadCatalogue(dir: string = DEFAULT_CATALOGUE_DIR, opts: LoadOptions = {}): LoadResult {
  const root = resolve(dir);
  const files = listFiles(root);
  const cacheDir = opts.cacheDir ?? process.env.GATEWAY_CACHE_DIR ?? join(tmpdir(), 'catalogue-gateway-cache');
  const hash = createHash('sha256').update(MODEL_VERSION).update(root);
  const texts = new Map<string, string>();
  for (const f of files) {
    const text = readFileSync(join(root, f), 'utf8');
    texts.set(f, text);
    hash.update(f).update('\0').update(text).update('\0');
  }
  const cacheFile = cacheDir === false ? null : join(cacheDir, `catalogue-${hash.digest('hex').slice(0, 32)}.json`);
  if (cacheFile) {
    try {
      const cached = JSON.parse(readFileSync(cacheFile, 'utf8')) as LoadResult;
      return { ...cached, fromCache: true };
    } catch {
      /* no cache yet, or unreadable: build it */
    }
  }
  const result = build(root, files, texts);
  if (cacheFile) writeCache(cacheFile, result);
  return result;
}

function build(root: string, files: string[], texts: Map<string, string>): LoadResult {
  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  const display = (f: string) => relative(process.cwd(), join(root, f)) || f;
  const schemaText = texts.get(SCHEMA_FILE);
  if (schemaText === undefined) {
    throw new CatalogueError([{ file: display(SCHEMA_FILE), line: 0, message: 'catalogue JSON Schema not found' }]);
  }
  const schema = JSON.parse(schemaText) as Record<string, unknown>;
  const byService = new Map<string, RawFile[]>();
  for (const f of files) {
    if (!f.endsWith('.yaml') && !f.endsWith('.yml')) continue;
    const [service] = f.split('/');
    if (service === 'schema') continue;
    const parsed = parseYamlFile(display(f), texts.get(f)!, problems);
    if (!parsed) continue;
    const list = byService.get(service) ?? [];
    list.push({ path: f.slice(service.length + 1), ...parsed });
    byService.set(service, list);
  }
  if (byService.size === 0) problems.push({ file: display('.'), line: 0, message: 'no service folders with YAML files found' });
  const services = [];
  for (const [id, raw] of [...byService].sort(([a], [b]) => a.localeCompare(b))) {
    const svc = buildService(id, raw, schema, problems, warnings);
    if (svc) services.push(svc);
  }
  checkAcrossServices(services, problems);
  if (problems.length) throw new CatalogueError(problems, warnings);
  return { catalogue: { dir: root, services }, warnings, fromCache: false };
}

function checkAcrossServices(services: Catalogue['services'], problems: Problem[]): void {
  const owner = new Map<string, string>();
  for (const s of services) {
    for (const e of s.endpoints) {
      const other = owner.get(e.key);
      if (other && other !== s.id) {
        problems.push({ ...e.at, message: `duplicate endpoint ${e.key}: service ${other} already serves it` });
      }
      owner.set(e.key, s.id);
    }
  }
}

function listFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      if (name.startsWith('.')) continue;
      const r = rel ? `${rel}/${name}` : name;
      if (statSync(join(root, r)).isDirectory()) walk(r);
      else if (/\.(ya?ml|json)$/.test(name)) out.push(r);
    }
  };
  walk('');
  return out;
}

function writeCache(file: string, result: LoadResult): void {
  try {
    mkdirSync(join(file, '..'), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ catalogue: result.catalogue, warnings: result.warnings }));
    renameSync(tmp, file); // atomic: replicas starting together never read half a file
  } catch {
    /* a read-only cache folder only costs start-up time */
  }
}
