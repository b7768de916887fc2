// Problems found while loading a catalogue, each pointing at a file and line.
export interface Problem {
  file: string;
  line: number;
  message: string;
}

export function formatProblem(p: Problem): string {
  return `${p.file}:${p.line}: ${p.message}`;
}

/** Thrown by the loader with every error found, so a broken catalogue is fixed in one pass. */
export class CatalogueError extends Error {
  constructor(
    readonly problems: Problem[],
    readonly warnings: Problem[] = [],
  ) {
    super(`catalogue has ${problems.length} error(s):\n${problems.map(formatProblem).join('\n')}`);
    this.name = 'CatalogueError';
  }
}

/**
 * A catalogue that could not be read (a link loop, a file gone or unreadable): an input error, as a
 * bad flag is — the tools exit 2 — rather than a catalogue whose content is wrong.
 */
export class CatalogueReadError extends CatalogueError {
  constructor(problems: Problem[]) {
    super(problems);
    this.name = 'CatalogueReadError';
  }
}
