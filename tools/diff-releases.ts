// npm run diff -- <from> <to> [options]: what changes for a client pinned to <from> when it moves to <to>.
// npm run diff -- --base <dir | git revision> [--release R …] [options]: what an edit of the working
// catalogue changes, per release, for clients pinned there (the review gate for catalogue edits).
// Exit status: 0 done, 1 a change at or above --fail-on is present (a base diff also fails when a
// published release was deleted), 2 bad arguments or catalogue.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { loadCatalogue } from '../src/catalogue/load.js';
import { cacheDirFrom } from '../src/config.js';
import { command } from '../src/cli/run-tool.js';
import { flag, oneOf, parseArgs, UsageError } from '../src/args.js';
import {
  DIFF_JSON_SCHEMA, diffCatalogues, diffReleases, format, FORMATS, openBase, parseIgnore, parseSeverity, RULES, severityRank, versionedService,
  type Change, type DiffResult, type Severity,
} from '../src/diff/index.js';

const FAIL_ON = ['breaking', 'warning', 'info', 'any'] as const;
const FORMAT_CHOICES = [...FORMATS, 'json-schema'] as const;

const USAGE = `usage: npm run diff -- <from> <to> [options]
       npm run diff -- --base <dir | git revision> [--release <id>]… [options]
       npm run diff -- --list-rules | --format json-schema
options: [--format ${FORMAT_CHOICES.join('|')}] [--fail-on ${FAIL_ON.join('|')}] [--ignore <file>] [--severity <rules.yaml>]
         [--deprecation-releases N] [--service <id>] [--catalogue <dir>]`;

function main(argv: string[]): number {
  const args = parseArgs(argv, ['format', 'fail-on', 'ignore', 'severity', 'service', 'catalogue', 'base', 'release', 'deprecation-releases'], ['list-rules', 'help']);
  if (flag(args, 'help')) {
    console.log(USAGE);
    return 0;
  }
  if (flag(args, 'list-rules')) {
    for (const r of RULES) console.log(`${r.id.padEnd(44)} ${r.severity.padEnd(8)} ${r.description}`);
    return 0;
  }
  const fmt = oneOf('format', flag(args, 'format') ?? 'text', FORMAT_CHOICES);
  if (fmt === 'json-schema') {
    process.stdout.write(`${JSON.stringify(DIFF_JSON_SCHEMA, null, 2)}\n`);
    return 0;
  }
  const failOnFlag = flag(args, 'fail-on');
  const failOn = failOnFlag === undefined ? undefined : oneOf('fail-on', failOnFlag, FAIL_ON);
  const ignoreFile = flag(args, 'ignore');
  const ignore = ignoreFile === undefined ? undefined : parseIgnore(readOptionFile('ignore', ignoreFile), ignoreFile);
  const severityFile = flag(args, 'severity');
  const severity = severityFile === undefined ? undefined : parseSeverity(readOptionFile('severity', severityFile), severityFile);
  const deprecationReleases = count('deprecation-releases', flag(args, 'deprecation-releases'));
  const opts = { ignore, severity, deprecationReleases };
  const { catalogue } = loadCatalogue(flag(args, 'catalogue'), { cacheDir: cacheDirFrom() });
  const named = [...args.positionals, ...(args.flags.get('release') ?? []).flatMap((v) => v.split(','))].filter(Boolean);
  const service = versionedService(catalogue, flag(args, 'service'), named);
  const baseSpec = flag(args, 'base');
  let result: DiffResult;
  if (baseSpec !== undefined) {
    if (args.positionals.length) throw new UsageError(`--base compares the working catalogue with a base; unexpected argument "${args.positionals[0]}" (use --release <id> to narrow it)`);
    const releases = (args.flags.get('release') ?? []).flatMap((v) => v.split(',')).filter(Boolean);
    const base = openBase(baseSpec, catalogue.dir);
    try {
      // A git revision is extracted to a fresh temporary folder: caching it would only litter the cache.
      const baseCatalogue = loadCatalogue(base.dir, { cacheDir: cacheDirFrom(), modelCache: base.dir === catalogue.dir }).catalogue;
      result = diffCatalogues(baseCatalogue, catalogue, service, base.label, { ...opts, releases: releases.length ? releases : undefined });
    } finally {
      base.dispose();
    }
  } else {
    if (flag(args, 'release') !== undefined) throw new UsageError('--release narrows a base diff; use it with --base');
    if (args.positionals.length !== 2) {
      throw new UsageError(`expected two releases <from> <to> (or --base <dir | git revision>), got ${args.positionals.length} argument(s)`);
    }
    const [from, to] = args.positionals;
    result = diffReleases(catalogue, service, from, to, opts);
  }
  const junitFailOn: Severity = failOn === undefined || failOn === 'any' ? (failOn === 'any' ? 'info' : 'breaking') : failOn;
  process.stdout.write(format(result, fmt, { failOn: junitFailOn, pathPrefix: relative(process.cwd(), catalogue.dir) }));
  const dropped = (result.droppedReleases?.length ?? 0) > 0;
  return failOn && (dropped || result.changes.some((c) => fails(c, failOn))) ? 1 : 0;
}

function fails(c: Change, level: (typeof FAIL_ON)[number]): boolean {
  return level === 'any' || severityRank(c.severity) <= severityRank(level);
}

function count(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`invalid ${name} "${value}": expected a whole number of releases`);
  return Number(value);
}

function readOptionFile(option: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${option} file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

export const tool = command(import.meta.url, { main, catalogueErrorExit: 2 });
