// A mistake in how the gateway was started (flags, environment, config file, release pin): the CLI
// prints the one-line message and exits 2. A leaf module so every layer can throw it without
// importing the CLI.
export class UsageError extends Error {
  override name = 'UsageError';
}

/** `value` if it is one of `choices`, else a UsageError listing them. */
export function oneOf<T extends string>(name: string, value: string, choices: readonly T[]): T {
  if (!choices.includes(value as T)) throw new UsageError(`invalid ${name} "${value}"; valid: ${choices.join(', ')}`);
  return value as T;
}
