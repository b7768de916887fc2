// Shared ending of the command-line tools: run main, turn usage, input and catalogue errors into
// one clear message and an exit status (a usage or input error in one line, its control characters
// escaped: it may quote a hostile file), let anything else surface as the bug it is.
// A tool module exports its command and runs it only when node was started on that module, so the
// tests can also run it in their own process (test/support/tools.ts), without a node start each.
import { CatalogueError, CatalogueReadError } from '../catalogue/problems.js';
import { UnknownReleaseError } from '../catalogue/resolve.js';
import { UsageError } from '../args.js';
import { InputError } from '../input-error.js';
import { printable } from '../printable.js';
import { startedOn } from './entry.js';

export interface Tool {
  /** The exit status; a promise of it for a command that waits on the network (drift <url>). */
  main: (argv: string[]) => number | Promise<number>;
  /** Printed after a usage error. */
  usage?: string;
  /** Exit status for a catalogue that does not load (default 1; one that cannot be read: 2). */
  catalogueErrorExit?: number;
}

/** Run `tool` on `argv`: its exit status, with usage and catalogue errors said on stderr. */
export function runTool(tool: Tool, argv: string[]): number | Promise<number> {
  // Asking for help is not a mistake: the usage on stdout, exit 0, wherever --help stands.
  if (tool.usage && argv.some((a) => a === '--help' || a === '-h')) {
    console.log(tool.usage);
    return 0;
  }
  try {
    const status = tool.main(argv);
    return typeof status === 'number' ? status : status.catch((e: unknown) => ended(tool, e));
  } catch (e) {
    return ended(tool, e);
  }
}

/** The exit status of a tool that threw `e`: usage, input and catalogue errors said on stderr, anything else rethrown. */
function ended(tool: Tool, e: unknown): number {
  if (e instanceof InputError) {
    console.error(`error: ${printable(e.message)}`);
    return 2;
  }
  if (e instanceof UsageError || e instanceof UnknownReleaseError) {
    console.error(`error: ${printable(e.message)}`);
    if (tool.usage && e instanceof UsageError) console.error(tool.usage);
    return 2;
  }
  if (e instanceof CatalogueError) {
    console.error(e.message);
    return e instanceof CatalogueReadError ? 2 : tool.catalogueErrorExit ?? 1;
  }
  throw e;
}

export interface Command extends Tool {
  /** runTool with this module's own classes: a bundled tool (tools/bundle.ts) has copies of its own. */
  run(argv: string[]): number | Promise<number>;
}

/**
 * A tool module's command: run at once on the command line's arguments when `moduleUrl` (the tool's
 * import.meta.url) is the script node was started on; otherwise only returned, for a caller to run.
 */
export function command(moduleUrl: string, tool: Tool): Command {
  const cmd = { ...tool, run: (argv: string[]) => runTool(tool, argv) };
  if (startedOn(moduleUrl)) {
    const status = cmd.run(process.argv.slice(2));
    if (typeof status === 'number') process.exitCode = status;
    else void status.then((s) => { process.exitCode = s; });
  }
  return cmd;
}
