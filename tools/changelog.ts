// npm run changelog [-- --service <id>] [--output <file>] [--catalogue <dir>]: the markdown change
// history of a service (every release, newest first), regenerated from the catalogue alone.
import { writeFileSync } from 'node:fs';
import { loadCatalogue } from '../src/catalogue/load.js';
import { cacheDirFrom } from '../src/config.js';
import { command } from '../src/cli/run-tool.js';
import { flag, parseArgs, UsageError } from '../src/args.js';
import { changelog, versionedService } from '../src/diff/index.js';

const USAGE = 'usage: npm run changelog -- [--service <id>] [--output <file>] [--catalogue <dir>]';

function main(argv: string[]): number {
  const args = parseArgs(argv, ['service', 'output', 'catalogue'], ['help']);
  if (flag(args, 'help')) {
    console.log(USAGE);
    return 0;
  }
  if (args.positionals.length) throw new UsageError(`unexpected argument "${args.positionals[0]}"; ${USAGE}`);
  const { catalogue } = loadCatalogue(flag(args, 'catalogue'), { cacheDir: cacheDirFrom() });
  const text = changelog(versionedService(catalogue, flag(args, 'service')));
  const output = flag(args, 'output');
  if (output === undefined) process.stdout.write(text);
  else writeFileSync(output, text);
  return 0;
}

export const tool = command(import.meta.url, { main, catalogueErrorExit: 2 });
