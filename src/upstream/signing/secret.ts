// A configuration value that must never be printed: logs, error messages, JSON and util.inspect
// all see "[redacted]"; only reveal() hands out the text, at the one place that needs it.
import { inspect } from 'node:util';

export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return '[redacted]';
  }

  toJSON(): string {
    return '[redacted]';
  }

  [inspect.custom](): string {
    return 'Secret([redacted])';
  }
}
