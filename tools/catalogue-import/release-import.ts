// Import one release of an upstream: compare a description of it (OpenAPI 3 or a method table) with
// the catalogue at the release before, and write what changed as lifecycle facts.
//
// - releases.yaml gets the release (id, date, source) unless it is already its last one; a folder
//   without service.yaml gets one from the OpenAPI document (the first import creates the service);
// - operations, parameters and enum values the description has and the previous release lacks are
//   stamped `added: <release>` (new operations are written as import-openapi writes them, string
//   enums as named enums in enums.yaml so that each value has a lifecycle);
// - what the previous release has and the description lacks is stamped `removed` (OpenAPI) or
//   `deprecated` (a method table: an operation an official client stopped calling is not proven
//   gone); `deprecated: true` in the description stamps `deprecated`;
// - each removal gets a proposed changes.yaml entry, for review: a `move` to the replacement the
//   description or the catalogue names, else `unbridgeable`;
// - a fact already written (added/removed/deprecated, security, schema) that differs from the
//   description is kept and reported as `differs`; except a required parameter the description
//   makes optional (nothing older breaks): its entry ends at the release and an optional one
//   begins (`optional`); so does a security requirement the description relaxes (`relaxed`).
// The edited folder is loaded and its version changes checked before anything is written, so lint
// passes after an import; a second run of the same import changes no byte.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError } from '../../src/args.js';
import { InputError } from '../../src/input-error.js';
import { checkChanges } from '../../src/catalogue/changes/check.js';
import { DEFAULT_CATALOGUE_DIR, loadCatalogue } from '../../src/catalogue/load.js';
import type { Service } from '../../src/catalogue/model.js';
import { CatalogueError, formatProblem, type Problem } from '../../src/catalogue/problems.js';
import { releaseIdProblem } from '../../src/catalogue/release-id.js';
import { cacheDirFrom } from '../../src/config.js';
import { parseYamlData } from '../../src/catalogue/yaml-file.js';
import { ServiceFiles } from './catalogue-nodes.js';
import { openApiDescription, type Description } from './description.js';
import { serviceFromOpenApi, serviceText } from './import-openapi.js';
import { isMethodTable, methodTableDescription } from './method-table.js';
import { parseSource, readingInput, readSourceText, SOURCE_LIMITS, type SourceLimits } from './source-file.js';
import { Importer, type AbsentPolicy, type Proposal, type ReleaseImportReport, type SourceKind } from './release-compare.js';

export type { AbsentPolicy, ReleaseImportReport, SourceKind } from './release-compare.js';

export interface ReleaseImportOptions {
  release: string;
  /** YYYY-MM-DD; required when the release is not in releases.yaml yet. */
  date?: string;
  from?: SourceKind;
  /** What happens to what the description lacks (default: remove for openapi, deprecate for a method table). */
  absent?: AbsentPolicy;
  /** Only operations whose path starts with one of these. */
  paths?: string[];
  /** Only operations whose first OpenAPI tag is one of these (an endpoint of the catalogue: its endpoints file's name). */
  tags?: string[];
  dryRun?: boolean;
  /** Bounds on the source file (source-file.ts; default SOURCE_LIMITS). */
  limits?: Partial<SourceLimits>;
}

/** The catalogue would not pass lint after the import: nothing is written. */
export class ImportCheckError extends Error {
  constructor(readonly problems: string[], readonly report: ReleaseImportReport) {
    super(`the imported catalogue would not pass lint:\n${problems.join('\n')}`);
    this.name = 'ImportCheckError';
  }
}

export function detectKind(file: string, limits: SourceLimits = SOURCE_LIMITS): SourceKind {
  if (/\.json$/i.test(file)) {
    const text = readSourceText(file, limits);
    try {
      if (isMethodTable(parseSource(file, text, false))) return 'method-table';
    } catch {
      // not JSON after all: the OpenAPI reader says why
    }
  }
  return 'openapi';
}

/**
 * The description in `file`, read by the reader of its kind. A source the readers do not foresee
 * (a list where an object belongs, …) is refused as an input (one line, exit 2), not a crash.
 */
function describe(file: string, from: SourceKind, serviceRaw: Record<string, any> | null, opts: ReleaseImportOptions, limits: SourceLimits): Description {
  return from === 'openapi'
    ? readingInput(file, 'an OpenAPI 3 description', () => openApiDescription(file, serviceRaw, { paths: opts.paths, tags: opts.tags }, limits))
    : readingInput(file, 'a method table', () => methodTableDescription(file, serviceRaw, opts.paths, limits));
}

export function importRelease(sourceFile: string, serviceDir: string, opts: ReleaseImportOptions): ReleaseImportReport {
  const dir = resolve(serviceDir);
  const root = dirname(dir);
  const R = opts.release;
  const idProblem = releaseIdProblem(R);
  if (idProblem) throw new UsageError(idProblem);
  if (opts.date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(opts.date)) throw new UsageError(`--date "${opts.date}" is not YYYY-MM-DD`);
  if (!existsSync(sourceFile)) throw new UsageError(`${sourceFile}: no such file`);
  const limits = { ...SOURCE_LIMITS, ...opts.limits };
  const from = opts.from ?? detectKind(sourceFile, limits);
  const serviceRaw = existsSync(join(dir, 'service.yaml')) ? serviceYaml(join(dir, 'service.yaml')) : null;
  if (!serviceRaw && from !== 'openapi') throw new UsageError(`${dir} has no service.yaml: the first import of a service needs an OpenAPI description (or write service.yaml by hand)`);
  if (opts.tags?.length && from !== 'openapi') throw new UsageError('--tags selects by OpenAPI tag: a method table has none (use --paths)');
  const desc = describe(sourceFile, from, serviceRaw, opts, limits);
  const service = serviceRaw ? loadService(root, basename(dir)) : null;
  if (service && !service.versioned && service.endpoints.length) throw new UsageError(`${dir} has endpoints but no releases.yaml: write its releases by hand before importing one`);

  const releases = service?.releases ?? [];
  const r = releases.findIndex((x) => x.id === R);
  const last = releases.at(-1);
  if (r >= 0 && r !== releases.length - 1) throw new UsageError(`release ${R} is in releases.yaml but is not its last release (${last!.id}): an import adds the newest release`);
  if (r >= 0 && opts.date !== undefined && releases[r].date !== opts.date) throw new UsageError(`release ${R} is dated ${releases[r].date} in releases.yaml, not ${opts.date}`);
  if (r < 0 && opts.date === undefined) throw new UsageError(`release ${R} is not in releases.yaml: give its date with --date YYYY-MM-DD`);
  if (r < 0 && last && opts.date! < last.date) throw new UsageError(`release ${R} (${opts.date}) would come after ${last.id}, dated ${last.date}`);
  const P = r >= 0 ? r - 1 : releases.length - 1;

  const files = new ServiceFiles(dir);
  const absent = opts.absent ?? (from === 'openapi' ? 'remove' : 'deprecate');
  const report: ReleaseImportReport = {
    release: R, date: r >= 0 ? releases[r].date : opts.date!, previous: P >= 0 ? releases[P].id : null, source: desc.label, from, absent,
    dryRun: !!opts.dryRun, createdService: !serviceRaw, createdRelease: r < 0,
    added: [], removed: [], deprecated: [], optional: [], required: [], relaxed: [], retyped: [], differs: [], skipped: [...desc.skipped], proposed: [], leftOut: desc.leftOut, notes: [...desc.warnings], files: [],
  };
  const imp = new Importer(desc, service, serviceRaw ?? {}, files, { R, r, P, absent, paths: opts.paths, tags: opts.tags }, report);
  if (!serviceRaw) files.create('service.yaml', serviceText(newService(desc, basename(dir), basename(sourceFile)), basename(sourceFile)));
  else imp.addSchemas(serviceRaw);
  if (r < 0) imp.addRelease(opts.date!);
  imp.run();
  if (from === 'method-table' && absent === 'deprecate') {
    report.notes.push(`a method table lists what official clients call, not what the upstream serves: ${report.deprecated.length} item(s) it lacks are deprecated, not removed (--absent remove to remove them)`);
  }

  // Load and check the edited folder before writing anything.
  let outputs = files.outputs();
  let problems = check(root, dir, outputs);
  const failedMoves = imp.proposals.filter((p) => p.kind === 'change' && problems.some((m) => m.includes(`change ${p.entry.id}:`)));
  if (failedMoves.length) {
    for (const p of failedMoves) {
      const mine = problems.filter((m) => m.includes(`change ${p.entry.id}:`)).map((m) => m.slice(m.indexOf(`change ${p.entry.id}:`)));
      report.notes.push(`${p.key}: the proposed move to ${(p.entry.request as { move: string }[])[0].move} does not check (${mine.length} problem(s), the first: ${mine[0]}): declared unbridgeable naming it instead`);
      p.kind = 'unbridgeable';
      p.entry = p.fallback!;
    }
    imp.writeProposals();
    outputs = files.outputs();
    problems = check(root, dir, outputs);
  }
  report.proposed = imp.proposals.map(describeProposal);
  report.files = [...outputs.keys()].sort();
  if (problems.length) throw new ImportCheckError(problems, report);
  if (!opts.dryRun) {
    for (const [rel, text] of outputs) {
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
      writeFileSync(join(dir, rel), text);
    }
  }
  return report;
}

/** The service's own service.yaml, parsed as the loader parses it (its YAML limits); the loader says what else is wrong with it. */
function serviceYaml(file: string): Record<string, any> {
  let data: unknown;
  try {
    data = parseYamlData(readFileSync(file, 'utf8'), false);
  } catch (e) {
    throw new InputError(`${file}: invalid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  return (data !== null && typeof data === 'object' && !Array.isArray(data) ? data : {}) as Record<string, any>;
}

/** service.yaml of a new service: from the OpenAPI document, with the named schemas its body fields refer to. */
function newService(desc: Description, id: string, file: string): Record<string, unknown> {
  const service = serviceFromOpenApi(desc.openapi!, id, file);
  return Object.keys(desc.schemas).length ? { ...service, schemas: desc.schemas } : service;
}

function loadService(root: string, id: string): Service {
  const { catalogue } = loadCatalogue(root, { cacheDir: cacheDirFrom() });
  const s = catalogue.services.find((x) => x.id === id);
  if (!s) throw new UsageError(`${join(root, id)}: no service "${id}" in the catalogue at ${root}`);
  return s;
}

/** The loader's problems and the version-change check's for the service folder with `outputs` written. */
function check(root: string, dir: string, outputs: Map<string, string>): string[] {
  const tmp = mkdtempSync(join(tmpdir(), 'release-import-'));
  try {
    const schema = existsSync(join(root, 'schema')) ? join(root, 'schema') : join(DEFAULT_CATALOGUE_DIR, 'schema');
    cpSync(schema, join(tmp, 'schema'), { recursive: true });
    const copy = join(tmp, basename(dir));
    if (existsSync(dir)) cpSync(dir, copy, { recursive: true });
    for (const [rel, text] of outputs) {
      mkdirSync(dirname(join(copy, rel)), { recursive: true });
      writeFileSync(join(copy, rel), text);
    }
    try {
      const { catalogue } = loadCatalogue(tmp, { cacheDir: cacheDirFrom(), modelCache: false });
      return catalogue.services.flatMap((s) => checkChanges(s).problems).map(formatProblem);
    } catch (e) {
      if (e instanceof CatalogueError) return e.problems.map((p: Problem) => formatProblem(p));
      throw e;
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function describeProposal(p: Proposal): string {
  const e = p.entry as Record<string, any>;
  if (p.kind === 'change') return `change ${e.id}: ${e.operation} at ${e.release}: move ${e.request[0].move}`;
  const what = e.parameter ? ` parameter ${e.parameter}${e.values ? ` values ${e.values.join(',')}` : ''}` : '';
  return `unbridgeable ${e.operation}${what} at ${e.release}${e.replacement ? ` (replacement: ${e.replacement})` : ''}`;
}

