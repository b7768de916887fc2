// Parse one YAML file keeping positions, so later checks can name the line of any value.
import { createRequire } from 'node:module';
import type { Document } from 'yaml';
import type { Problem } from './problems.js';

export interface ParsedYaml {
  file: string;
  data: unknown;
  /** Line (1-based) of the value at a JSON path, or of its nearest existing parent. */
  lineOf(path: readonly (string | number)[]): number;
}

// Loaded on first use: a start-up served from the JSON cache never pays for the YAML library.
const require = createRequire(import.meta.url);

export function parseYamlFile(file: string, text: string, problems: Problem[]): ParsedYaml | null {
  const { LineCounter, parseDocument } = require('yaml') as typeof import('yaml');
  const lines = new LineCounter();
  const doc: Document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length) {
    for (const e of doc.errors) {
      problems.push({ file, line: lines.linePos(e.pos[0]).line, message: `invalid YAML: ${e.message.split('\n')[0]}` });
    }
    return null;
  }
  const lineOf = (path: readonly (string | number)[]): number => {
    for (let n = path.length; n >= 0; n--) {
      const node = doc.getIn(path.slice(0, n), true) as { range?: [number, number, number] } | undefined;
      if (node && node.range) return lines.linePos(node.range[0]).line;
    }
    return 1;
  };
  return { file, data: doc.toJS({ maxAliasCount: 1000 }), lineOf };
}
