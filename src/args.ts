// Minimal flag parsing shared by the gateway's configuration and the command-line tools: --name value, --name=value, --flag, positionals.
export interface ParsedArgs {
  flags: Map<string, string[]>;
  positionals: string[];
}

import { oneOf, UsageError } from './usage-error.js';

export { oneOf, UsageError };

/** Parse argv; `booleans` lists flags that take no value. Unknown flags are usage errors. */
export function parseArgs(argv: string[], known: readonly string[], booleans: readonly string[] = []): ParsedArgs {
  const flags = new Map<string, string[]>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) {
      positionals.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq < 0 ? undefined : eq);
    if (!known.includes(name) && !booleans.includes(name)) {
      throw new UsageError(`unknown option --${name} (valid: ${[...known, ...booleans].map((k) => `--${k}`).join(', ')})`);
    }
    let value: string;
    if (booleans.includes(name)) value = eq < 0 ? 'true' : a.slice(eq + 1);
    else if (eq >= 0) value = a.slice(eq + 1);
    else {
      if (i + 1 >= argv.length || argv[i + 1].startsWith('--')) throw new UsageError(`option --${name} needs a value`);
      value = argv[++i];
    }
    flags.set(name, [...(flags.get(name) ?? []), value]);
  }
  return { flags, positionals };
}

export function flag(args: ParsedArgs, name: string): string | undefined {
  return args.flags.get(name)?.at(-1);
}
