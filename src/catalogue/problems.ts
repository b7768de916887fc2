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
