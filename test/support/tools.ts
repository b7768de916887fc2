// Runs a command-line tool of dist/tools in this process: the tool's own command (its main, usage
// and exit statuses, src/cli/run-tool.ts) on the given arguments, with what it writes to stdout and
// stderr captured. A node start and the tool's modules cost ~0.1 s of CPU per run in a process of
// its own, ~70 runs per suite; tests that need the command itself (its --help, an environment of
// its own, the bundled file's cold start) still spawn it.
import type { Command } from '../../src/cli/run-tool.js';
import { tool as catalogue } from '../../tools/catalogue.js';
import { tool as changelog } from '../../tools/changelog.js';
// The bundled file (tools/bundle.ts) that `npm run diff` runs, not the modules it was made from.
import { tool as diffReleases } from '../../tools/diff-releases.js';
import { ROOT } from './processes.js';

const TOOLS = { catalogue, changelog, 'diff-releases': diffReleases } satisfies Record<string, Command>;
export type ToolName = keyof typeof TOOLS;

export interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * `node dist/tools/<name>.js ...args` run here, in `cwd` (default: the repository's root, as npm
 * runs it). Synchronous as the tools are, so nothing else of this process runs (or writes) while
 * the output is captured.
 */
export function runTool(name: ToolName, args: string[], opts: { cwd?: string } = {}): Run {
  const out: string[] = [], err: string[] = [];
  const capture = (into: string[]) => ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    into.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
    const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    if (done) queueMicrotask(done);
    return true;
  }) as typeof process.stdout.write;
  const { write: outWrite } = process.stdout, { write: errWrite } = process.stderr;
  const dir = process.cwd();
  process.stdout.write = capture(out);
  process.stderr.write = capture(err);
  try {
    process.chdir(opts.cwd ?? ROOT);
    const status = TOOLS[name].run(args);
    if (typeof status !== 'number') throw new Error(`${name} ${args.join(' ')} did not finish synchronously; run it in a process of its own`);
    return { status, stdout: out.join(''), stderr: err.join('') };
  } finally {
    process.stdout.write = outWrite;
    process.stderr.write = errWrite;
    process.chdir(dir);
  }
}
