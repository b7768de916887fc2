// Load a catalogue folder: read YAML, check it against the JSON Schema and the cross-file rules,
// and build the typed model. Every problem is collected, so one run reports them all. A checked
// catalogue is kept as JSON (./model-cache.ts), which a start-up reads without loading this module.
import { join, relative } from 'node:path';
import { buildService, type RawFile } from './build/index.js';
import { CatalogueError, type Problem } from './problems.js';
import { parseYamlFile } from './yaml-file.js';
import { checkChanges } from './changes/check.js';
import { DEFAULT_CATALOGUE_DIR, openCatalogue, writeCache, type LoadOptions, type LoadResult, type Opened } from './model-cache.js';
import type { Catalogue } from './model.js';
import { operationKey } from './operation-key.js';

export { asciiJson, DEFAULT_CATALOGUE_DIR, defaultCacheDir, isStaleCache, loaderVersion, type LoadOptions, type LoadResult } from './model-cache.js';

const SCHEMA_FILE = 'schema/catalogue.schema.json';

/** Load and check a catalogue; throws CatalogueError listing every problem found. */
export function loadCatalogue(dir: string = DEFAULT_CATALOGUE_DIR, opts: LoadOptions = {}): LoadResult {
  return modelOf(openCatalogue(dir, opts));
}

/** The model of an opened folder: the cached one, or built, checked and kept in the cache. */
export function modelOf(opened: Opened): LoadResult {
  if (opened.cached) return opened.cached;
  const { root, files, bytes, hash, cacheFile, cacheDir } = opened;
  const texts = new Map([...bytes].map(([f, data]) => [f, data.toString('utf8')]));
  const result = { ...build(root, files, texts, cacheDir), hash };
  if (cacheFile) writeCache(cacheFile, result);
  return result;
}

function build(root: string, files: string[], texts: Map<string, string>, cacheDir: string | false): Omit<LoadResult, 'hash'> {
  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  const display = (f: string) => relative(process.cwd(), join(root, f)) || f;
  const schemaText = texts.get(SCHEMA_FILE);
  if (schemaText === undefined) {
    throw new CatalogueError([{ file: display(SCHEMA_FILE), line: 0, message: 'catalogue JSON Schema not found' }]);
  }
  let schema: Record<string, unknown>;
  try {
    schema = JSON.parse(schemaText) as Record<string, unknown>;
  } catch (e) {
    throw new CatalogueError([{ file: display(SCHEMA_FILE), line: 0, message: `catalogue JSON Schema is not JSON: ${(e as Error).message}` }]);
  }
  const byService = new Map<string, RawFile[]>();
  for (const f of files) {
    if (!f.endsWith('.yaml') && !f.endsWith('.yml')) continue;
    const [service] = f.split('/');
    if (service === 'schema') continue;
    const parsed = parseYamlFile(display(f), texts.get(f)!, problems, cacheDir);
    if (!parsed) continue;
    const list = byService.get(service) ?? [];
    list.push({ path: f.slice(service.length + 1), ...parsed });
    byService.set(service, list);
  }
  if (byService.size === 0) problems.push({ file: display('.'), line: 0, message: 'no service folders with YAML files found' });
  const services = [];
  for (const [id, raw] of [...byService].sort(([a], [b]) => a.localeCompare(b))) {
    const svc = buildService(id, raw, schema, problems, warnings, cacheDir);
    if (svc) services.push(svc);
  }
  checkAcrossServices(services, problems);
  if (!problems.length) checkVersionChanges(services);
  if (problems.length) throw new CatalogueError(problems, warnings);
  return { catalogue: { dir: root, services }, warnings, fromCache: false };
}

/**
 * Version changes against each service's default upstream release, checked once when the catalogue
 * is built (and so kept in its cache) rather than at every start. Only success is recorded: lint
 * reports the problems (with coverage) and a gateway refuses to start on them, as before.
 */
function checkVersionChanges(services: Catalogue['services']): void {
  for (const s of services) {
    if (!s.versioned || (!s.changes.changes.length && !s.changes.unbridgeable.length)) continue;
    const report = checkChanges(s);
    if (!report.problems.length && report.coverage) s.changes = { ...s.changes, checkedAgainst: report.coverage.upstreamRelease };
  }
}

function checkAcrossServices(services: Catalogue['services'], problems: Problem[]): void {
  const owner = new Map<string, string>();
  for (const s of services) {
    for (const e of s.endpoints) {
      const key = operationKey(e);
      const other = owner.get(key);
      if (other && other !== s.id) {
        problems.push({ ...e.at, message: `duplicate endpoint ${e.key}: service ${other} already serves it${key === e.key ? '' : ` (paths that differ only in parameter names are one operation)`}` });
      }
      owner.set(key, s.id);
    }
  }
}

