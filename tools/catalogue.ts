// npm run catalogue -- <command>: inspect and check the catalogue.
//   endpoints --release <id> [--service <id>] [--format json|table] [--catalogue <dir>]
//   lint [--catalogue <dir>] [--quiet]        the loader's errors and warnings; exit 1 on errors, 2 if unreadable
//   openapi [--release <id>] [--service <id>] [--catalogue <dir>]   OpenAPI 3.1 of what is served at the release
//   asyncapi [--release <id>] [--service <id>] [--catalogue <dir>]  AsyncAPI 3.0 of the websocket side at the release
//   plan <release> '<METHOD /path>' [--service <id>] [--upstream-release <id>]   the composed version-change plan
//   import-openapi <spec> <service-dir> [--module <name>] [--dry-run]
//                                             append endpoints the catalogue lacks; never rewrites entries
//   import <source> --service <dir> --release <id> [--date …] [--from …] [--absent …] [--paths …] [--dry-run] [--format …]
//                                             one release of the upstream as lifecycle facts, or what a ccxt
//                                             table calls that the catalogue does not account for (docs/release-import.md)
//   drift <gateway-url|file> [--format text|json]   what live traffic says the catalogue lacks (GET /_gateway/drift)
import { CatalogueError, CatalogueReadError, formatProblem } from '../src/catalogue/problems.js';
import { loadCatalogue } from '../src/catalogue/load.js';
import { cacheDirFrom } from '../src/config.js';
import { resolveService, UnknownReleaseError } from '../src/catalogue/resolve.js';
import { command } from '../src/cli/run-tool.js';
import { flag, oneOf, parseArgs, UsageError } from '../src/args.js';
import { importOpenApi } from './catalogue-import/import-openapi.js';
import { IMPORT_USAGE, importCommand as importReleaseCommand, sourceLimits } from './catalogue-import/release-report.js';
import { printable } from '../src/printable.js';
import { toOpenApi } from '../src/catalogue/to-openapi.js';
import { toAsyncApi } from '../src/catalogue/to-asyncapi.js';
import { pinViews } from '../src/catalogue/pin.js';
import type { ReleaseView } from '../src/catalogue/resolve.js';
import { lintChanges, planCommand } from './catalogue-changes.js';
import { driftCommand } from './catalogue-drift.js';

const USAGE = `usage: npm run catalogue -- <command> [options]
  endpoints --release <id> [--service <id>] [--format json|table] [--catalogue <dir>]
  lint [--catalogue <dir>] [--quiet]
  openapi [--release <id>] [--service <id>] [--catalogue <dir>]
  asyncapi [--release <id>] [--service <id>] [--catalogue <dir>]
  import-openapi <spec.yaml|json> <service-dir> [--module <name>] [--dry-run] [--max-source-mib <n>] [--max-operations <n>]
  ${IMPORT_USAGE}
      a release of the upstream (OpenAPI 3 or a method table) against the release before: added,
      removed, deprecated stamps and changes.yaml proposals; or ccxt's endpoint table (--from ccxt,
      --exchange <id>; nothing written): what it calls that the catalogue neither holds nor lists in
      not-served.yaml; see docs/release-import.md
  plan <release> '<METHOD /path>' [--service <id>] [--upstream-release <id>] [--catalogue <dir>]
  drift <gateway-url|file> [--format text|json]`;

function main(argv: string[]): number | Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'lint') return lint(rest);
  if (command === 'endpoints') return endpoints(rest);
  if (command === 'import-openapi') return importCommand(rest);
  if (command === 'import') return importReleaseCommand(rest);
  if (command === 'openapi') return exportDoc(rest, toOpenApi);
  if (command === 'asyncapi') return exportDoc(rest, toAsyncApi);
  if (command === 'plan') return plan(rest);
  if (command === 'drift') return driftCommand(rest);
  const valid = 'endpoints, lint, openapi, asyncapi, import-openapi, import, plan, drift';
  throw new UsageError(command ? `unknown command "${command}"; valid: ${valid}` : `missing command; valid: ${valid}`);
}

/** openapi / asyncapi: the document of every service at the release, or of the one --service names. */
function exportDoc(argv: string[], build: (views: ReleaseView[]) => Record<string, unknown>): number {
  const args = parseArgs(argv, ['release', 'service', 'catalogue']);
  const { catalogue } = loadCatalogue(flag(args, 'catalogue'), { cacheDir: cacheDirFrom() });
  const only = flag(args, 'service');
  if (only !== undefined) oneOf('service', only, catalogue.services.map((s) => s.id));
  const release = flag(args, 'release');
  // With --service, the release applies to that service alone (pinViews then checks it exists there).
  const pin = only !== undefined && release !== undefined ? { byService: { [only]: release } } : { all: release, byService: {} };
  // A release id names its own service (each keeps its own line): the others are left out, unversioned ones kept.
  const owns = (v: ReleaseView) => release === undefined || !v.service.versioned || v.service.releases.some((r) => r.id === release);
  const views = pinViews(catalogue, pin).filter((v) => (only === undefined ? owns(v) : v.service.id === only));
  console.log(JSON.stringify(build(views), null, 2));
  return 0;
}

/** plan: the composed version-change plan of one operation at a release, as JSON. */
function plan(argv: string[]): number {
  const args = parseArgs(argv, ['service', 'upstream-release', 'catalogue']);
  const [release, operation] = args.positionals;
  if (!release || !operation) throw new UsageError("plan needs <release> and '<METHOD /path>'");
  const { catalogue } = loadCatalogue(flag(args, 'catalogue'), { cacheDir: cacheDirFrom() });
  console.log(JSON.stringify(planCommand(catalogue, release, operation, flag(args, 'service'), flag(args, 'upstream-release')), null, 2));
  return 0;
}

function importCommand(argv: string[]): number {
  const args = parseArgs(argv, ['module', 'max-source-mib', 'max-operations'], ['dry-run']);
  const [spec, serviceDir] = args.positionals;
  if (!spec || !serviceDir) throw new UsageError('import-openapi needs <spec> and <service-dir>');
  const dryRun = flag(args, 'dry-run') === 'true';
  const r = importOpenApi(spec, serviceDir, { module: flag(args, 'module'), dryRun, limits: sourceLimits(args) });
  // Control characters escaped (src/printable.ts): what the description names must not forge a line.
  const say = (line: string) => console.log(printable(line));
  if (r.createdService) say(`${dryRun ? 'would write' : 'wrote'} ${serviceDir}/service.yaml`);
  for (const k of r.added) say(`${dryRun ? 'would add' : 'added'} ${k}`);
  for (const w of r.warnings) say(`note ${w}`);
  for (const s of r.skipped.filter((x) => !x.endsWith('already in the catalogue'))) say(`skipped ${s}`);
  console.log(`${r.added.length} endpoint(s) ${dryRun ? 'to add' : 'added'}, ${r.skipped.length} already present or left out; run 'lint' next`);
  return 0;
}

function lint(argv: string[]): number {
  const args = parseArgs(argv, ['catalogue'], ['quiet']);
  const quiet = flag(args, 'quiet') === 'true';
  try {
    // A cache hit is a catalogue that was already checked, byte for byte; a miss checks it and
    // fills the cache, so lint at install time also makes the first start-up skip the YAML.
    const { catalogue, warnings } = loadCatalogue(flag(args, 'catalogue'), { cacheDir: cacheDirFrom() });
    if (!quiet) for (const w of warnings) console.log(`warning: ${formatProblem(w)}`);
    const counts = catalogue.services.map((s) => `${s.id}: ${s.endpoints.length} endpoints, ${s.releases.length} releases, ${Object.keys(s.enums).length} enums, ${s.streams.length} streams, ${s.wsMethods.length} websocket methods`);
    const changes = lintChanges(catalogue, warnings.length, {}, quiet);
    if (changes.errors > 0) return 1;
    console.log(`catalogue ok (${counts.join('; ')}); ${changes.warnings} warning(s)`);
    return 0;
  } catch (e) {
    if (!(e instanceof CatalogueError)) throw e;
    for (const w of e.warnings) console.log(`warning: ${formatProblem(w)}`);
    for (const p of e.problems) console.log(`error: ${formatProblem(p)}`);
    console.log(`${e.problems.length} error(s), ${e.warnings.length} warning(s)`);
    return e instanceof CatalogueReadError ? 2 : 1; // a folder that cannot be read is an input error
  }
}

function endpoints(argv: string[]): number {
  const args = parseArgs(argv, ['release', 'service', 'format', 'catalogue']);
  const format = oneOf('format', flag(args, 'format') ?? 'table', ['json', 'table'] as const);
  const { catalogue } = loadCatalogue(flag(args, 'catalogue'), { cacheDir: cacheDirFrom() });
  const only = flag(args, 'service');
  const release = flag(args, 'release');
  const rows = [];
  for (const s of catalogue.services) {
    if (only && s.id !== only) continue;
    if (release && s.versioned && !s.releases.some((r) => r.id === release)) {
      if (only || catalogue.services.filter((x) => x.versioned).length === 1) throw new UnknownReleaseError(s, release);
      continue;
    }
    const view = resolveService(s, release);
    for (const e of view.served) {
      const ep = e.endpoint;
      rows.push({
        method: ep.method, path: ep.path, added: ep.added ?? null, removed: ep.removed ?? null,
        deprecated: ep.deprecated ?? null, security: e.security, service: s.id,
      });
    }
  }
  if (format === 'json') console.log(JSON.stringify(rows, null, 2));
  else {
    for (const r of rows) console.log([r.method.padEnd(6), r.path.padEnd(60), r.security.padEnd(7), r.deprecated ? `deprecated ${r.deprecated}` : '', r.service].join(' '));
    console.log(`${rows.length} endpoints`);
  }
  return 0;
}

export const tool = command(import.meta.url, { main, usage: USAGE });
