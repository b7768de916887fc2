// `npm run catalogue -- import`: the command around release-import.ts, and its report as text or JSON.
// Each text line has its control characters escaped (src/printable.ts): an item names what a
// description file says, and a newline there must not forge a line of the report.
import { flag, oneOf, parseArgs, UsageError, type ParsedArgs } from '../../src/args.js';
import { printable } from '../../src/printable.js';
import { ImportCheckError, importRelease, type ReleaseImportReport } from './release-import.js';
import { accountForCcxt, formatCcxtReport } from './ccxt-report.js';
import { isCcxtExtract, isCcxtPackage } from './ccxt-table.js';
import { parseSource, readSourceText, SOURCE_LIMITS, type SourceLimits } from './source-file.js';

export const IMPORT_USAGE = 'import <source-file> --service <dir> --release <id> [--date YYYY-MM-DD] [--from openapi|method-table|ccxt] [--exchange <id>] [--absent remove|deprecate] [--paths <prefix,...>] [--tags <tag,...>] [--dry-run] [--format text|json] [--max-source-mib <n>] [--max-operations <n>]';

/** --max-source-mib and --max-operations: the bounds on the source file (default SOURCE_LIMITS). */
export function sourceLimits(args: ParsedArgs): SourceLimits {
  const bound = (name: string, fallback: number): number => {
    const v = flag(args, name);
    if (v === undefined) return fallback;
    if (!/^[1-9]\d{0,6}$/.test(v)) throw new UsageError(`--${name} "${v}" is not a whole number from 1 to 9999999`);
    return Number(v);
  };
  return { maxMiB: bound('max-source-mib', SOURCE_LIMITS.maxMiB), maxOperations: bound('max-operations', SOURCE_LIMITS.maxOperations) };
}

/** The report as lines: one per item ("added GET /x"), then a summary; control characters escaped. */
export function formatReport(r: ReleaseImportReport): string {
  const lines = [`release ${r.release} (${r.date}) ${r.previous ? `after ${r.previous}` : '(the first)'} from ${r.source}${r.dryRun ? ' (dry run: nothing written)' : ''}`];
  const list = (word: string, items: string[]) => { for (const i of items) lines.push(`${word} ${i}`); };
  list('added', r.added);
  list('removed', r.removed);
  list('deprecated', r.deprecated);
  list('optional', r.optional.map((i) => `${i} (required until ${r.release})`));
  list('required', r.required.map((i) => `${i} (optional until ${r.release})`));
  list('relaxed', r.relaxed.map((i) => `${i} (from ${r.release})`));
  list('retyped', r.retyped.map((i) => `${i} (catalogue kept)`));
  list('differs', r.differs);
  list('skipped', r.skipped);
  list('proposed', r.proposed);
  list('note', r.notes);
  if (r.leftOut) lines.push(`left out ${r.leftOut} operation(s) outside --paths/--tags`);
  list(r.dryRun ? 'would write' : 'wrote', r.files);
  lines.push(`${r.added.length} added, ${r.removed.length} removed, ${r.deprecated.length} deprecated, ${r.optional.length} became optional, ${r.required.length} became required, ${r.relaxed.length} security relaxed, ${r.retyped.length} retyped, ${r.differs.length} differ (catalogue kept), ${r.skipped.length} skipped, ${r.proposed.length} changes.yaml proposal(s); ${r.files.length} file(s) ${r.dryRun ? 'to write' : 'written'}`);
  return `${lines.map(printable).join('\n')}\n`;
}

export function importCommand(argv: string[]): number {
  const args = parseArgs(argv, ['service', 'release', 'date', 'from', 'exchange', 'absent', 'paths', 'tags', 'format', 'max-source-mib', 'max-operations'], ['dry-run']);
  const [source, extra] = args.positionals;
  const service = flag(args, 'service');
  const release = flag(args, 'release');
  if (!source || extra !== undefined) throw new UsageError('import needs exactly one <source-file>');
  const format = oneOf('format', flag(args, 'format') ?? 'text', ['text', 'json'] as const);
  const fromFlag = flag(args, 'from');
  const from = fromFlag === undefined ? undefined : oneOf('from', fromFlag, ['openapi', 'method-table', 'ccxt'] as const);
  const list = (name: string) => flag(args, name)?.split(',').map((p) => p.trim()).filter(Boolean);
  if (from === 'ccxt' || (from === undefined && isCcxt(source, sourceLimits(args)))) return ccxtCommand(args, source, format, list('paths'));
  if (flag(args, 'exchange') !== undefined) throw new UsageError('--exchange names the exchange of a ccxt table (--from ccxt)');
  if (!service || !release) throw new UsageError('import needs --service <dir> and --release <id>');
  const absent = flag(args, 'absent');
  const opts = {
    release, date: flag(args, 'date'), dryRun: flag(args, 'dry-run') === 'true', paths: list('paths'), tags: list('tags'),
    from,
    absent: absent === undefined ? undefined : oneOf('absent', absent, ['remove', 'deprecate'] as const),
    limits: sourceLimits(args),
  };
  let report: ReleaseImportReport;
  try {
    report = importRelease(source, service, opts);
  } catch (e) {
    if (!(e instanceof ImportCheckError)) throw e;
    process.stdout.write(format === 'json' ? `${JSON.stringify({ ...e.report, problems: e.problems }, null, 2)}\n` : formatReport(e.report));
    for (const p of e.problems) console.error(`error: ${printable(p)}`);
    console.error(`nothing written: the catalogue would not pass lint after this import (${e.problems.length} problem(s))`);
    return 1;
  }
  process.stdout.write(format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  return 0;
}

/** A ccxt package folder, or a JSON file of ccxt's describe() shape (a bounded read, as any source). */
function isCcxt(source: string, limits: SourceLimits): boolean {
  if (isCcxtPackage(source)) return true;
  if (!/\.json$/i.test(source)) return false;
  try {
    return isCcxtExtract(parseSource(source, readSourceText(source, limits), false));
  } catch {
    return false; // the reader of its kind says what is wrong with it
  }
}

/** import --from ccxt: the report of what ccxt calls that the catalogue does not account for; exit 1 when anything is unaccounted for. */
function ccxtCommand(args: ParsedArgs, source: string, format: 'text' | 'json', paths: string[] | undefined): number {
  const service = flag(args, 'service');
  if (!service) throw new UsageError('import needs --service <dir>');
  for (const name of ['date', 'absent', 'tags']) {
    if (flag(args, name) !== undefined) throw new UsageError(`--${name} does not apply to a ccxt table: it is compared with the catalogue, never written into it`);
  }
  const report = accountForCcxt(source, service, { exchange: flag(args, 'exchange'), release: flag(args, 'release'), paths, limits: sourceLimits(args) });
  process.stdout.write(format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : formatCcxtReport(report));
  return report.unaccounted.length ? 1 : 0;
}
