// npm run diff -- <from> <to> [options]: what changes for a client pinned to <from> when it moves to <to>.
// Exit status: 0 done, 1 a change at or above --fail-on is present, 2 bad arguments or catalogue.
import { readFileSync } from 'node:fs';
import { loadCatalogue } from '../src/catalogue/load.js';
import { runTool } from '../src/cli/run-tool.js';
import { flag, oneOf, parseArgs, UsageError } from '../src/cli/args.js';
import { diffReleases, format, FORMATS, parseIgnore, RULES, severityRank, versionedService, type Change } from '../src/diff/index.js';

const FAIL_ON = ['breaking', 'warning', 'info', 'any'] as const;

const USAGE = `usage: npm run diff -- <from> <to> [--format ${FORMATS.join('|')}] [--fail-on ${FAIL_ON.join('|')}] [--ignore <file>] [--service <id>] [--catalogue <dir>]
       npm run diff -- --list-rules`;

function main(argv: string[]): number {
  const args = parseArgs(argv, ['format', 'fail-on', 'ignore', 'service', 'catalogue'], ['list-rules', 'help']);
  if (flag(args, 'help')) {
    console.log(USAGE);
    return 0;
  }
  if (flag(args, 'list-rules')) {
    for (const r of RULES) console.log(`${r.id.padEnd(26)} ${r.severity.padEnd(8)} ${r.description}`);
    return 0;
  }
  const fmt = oneOf('format', flag(args, 'format') ?? 'text', FORMATS);
  const failOnFlag = flag(args, 'fail-on');
  const failOn = failOnFlag === undefined ? undefined : oneOf('fail-on', failOnFlag, FAIL_ON);
  if (args.positionals.length !== 2) {
    throw new UsageError(`expected two releases <from> <to>, got ${args.positionals.length} argument(s)`);
  }
  const [from, to] = args.positionals;
  const ignoreFile = flag(args, 'ignore');
  const ignore = ignoreFile === undefined ? undefined : parseIgnore(readIgnoreFile(ignoreFile), ignoreFile);
  const { catalogue } = loadCatalogue(flag(args, 'catalogue'));
  const service = versionedService(catalogue, flag(args, 'service'));
  const result = diffReleases(catalogue, service, from, to, { ignore });
  process.stdout.write(format(result, fmt));
  return failOn && result.changes.some((c) => fails(c, failOn)) ? 1 : 0;
}

function fails(c: Change, level: (typeof FAIL_ON)[number]): boolean {
  return level === 'any' || severityRank(c.severity) <= severityRank(level);
}

function readIgnoreFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ignore file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

runTool(main, { catalogueErrorExit: 2 });
