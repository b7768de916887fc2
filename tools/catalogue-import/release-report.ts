// `npm run catalogue -- import`: the command around release-import.ts, and its report as text or JSON.
// Each text line has its control characters escaped (src/printable.ts): an item names what a
// description file says, and a newline there must not forge a line of the report.
import { flag, oneOf, parseArgs, UsageError, type ParsedArgs } from '../../src/args.js';
import { printable } from '../../src/printable.js';
import { ImportCheckError, importRelease, type ReleaseImportReport } from './release-import.js';
import { SOURCE_LIMITS, type SourceLimits } from './source-file.js';

export const IMPORT_USAGE = 'import <source-file> --service <dir> --release <id> [--date YYYY-MM-DD] [--from openapi|method-table] [--absent remove|deprecate] [--paths <prefix,...>] [--tags <tag,...>] [--dry-run] [--format text|json] [--max-source-mib <n>] [--max-operations <n>]';

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
  const args = parseArgs(argv, ['service', 'release', 'date', 'from', 'absent', 'paths', 'tags', 'format', 'max-source-mib', 'max-operations'], ['dry-run']);
  const [source, extra] = args.positionals;
  const service = flag(args, 'service');
  const release = flag(args, 'release');
  if (!source || extra !== undefined) throw new UsageError('import needs exactly one <source-file>');
  if (!service || !release) throw new UsageError('import needs --service <dir> and --release <id>');
  const format = oneOf('format', flag(args, 'format') ?? 'text', ['text', 'json'] as const);
  const from = flag(args, 'from');
  const absent = flag(args, 'absent');
  const list = (name: string) => flag(args, name)?.split(',').map((p) => p.trim()).filter(Boolean);
  const opts = {
    release, date: flag(args, 'date'), dryRun: flag(args, 'dry-run') === 'true', paths: list('paths'), tags: list('tags'),
    from: from === undefined ? undefined : oneOf('from', from, ['openapi', 'method-table'] as const),
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
