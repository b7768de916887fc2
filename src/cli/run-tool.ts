// Shared ending of the command-line tools: run main, turn usage and catalogue errors into
// one clear message and an exit status, let anything else surface as the bug it is.
import { CatalogueError, CatalogueReadError } from '../catalogue/problems.js';
import { UnknownReleaseError } from '../catalogue/resolve.js';
import { UsageError } from '../args.js';

export interface RunToolOptions {
  /** Printed after a usage error. */
  usage?: string;
  /** Exit status for a catalogue that does not load (default 1; one that cannot be read: 2). */
  catalogueErrorExit?: number;
}

export function runTool(main: (argv: string[]) => number, opts: RunToolOptions = {}): void {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (e) {
    if (e instanceof UsageError || e instanceof UnknownReleaseError) {
      console.error(`error: ${e.message}`);
      if (opts.usage && e instanceof UsageError) console.error(opts.usage);
      process.exitCode = 2;
    } else if (e instanceof CatalogueError) {
      console.error(e.message);
      process.exitCode = e instanceof CatalogueReadError ? 2 : opts.catalogueErrorExit ?? 1;
    } else throw e;
  }
}
