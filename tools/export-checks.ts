// The third-party checkers the exports must satisfy, run the way a user would: Redocly CLI's
// recommended ruleset (offline: telemetry and the update check off), swagger-parser, @asyncapi/parser.
// devDependencies: used by the tests and tools/lint-exports.ts only, never by the gateway.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Parser } from '@asyncapi/parser';

/** Repository root (this file runs from dist/tools). */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface RedoclyProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { source: { ref: string }; pointer: string }[];
}

export interface RedoclyResult {
  totals: { errors: number; warnings: number };
  problems: RedoclyProblem[];
}

/**
 * `redocly lint --extends recommended` over the files in one run (it starts slowly): one JSON report
 * per file, in the order given.
 */
export function redoclyLint(files: string[]): RedoclyResult[] {
  const bin = join(ROOT, 'node_modules', '.bin', 'redocly');
  const r = spawnSync(bin, ['lint', '--extends', 'recommended', '--format', 'json', ...files], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
  });
  const reports = jsonObjects(r.stdout) as RedoclyResult[];
  if (reports.length !== files.length) throw new Error(`redocly lint printed ${reports.length} JSON reports for ${files.length} files (exit ${r.status}):\n${r.stdout.slice(0, 4000)}\n${r.stderr}`);
  return reports;
}

/** The top-level JSON objects of a text where they follow each other ("}{"), as redocly prints them. */
function jsonObjects(text: string): unknown[] {
  const out: unknown[] = [];
  let depth = 0, start = -1, inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"' && depth > 0) inString = true;
    else if (ch === '{') {
      if (depth++ === 0) start = i;
    } else if (ch === '}' && depth > 0 && --depth === 0) out.push(JSON.parse(text.slice(start, i + 1)));
  }
  return out;
}

/** swagger-parser's validate (schema of OpenAPI 3.1 plus its own reference checks); throws on failure. */
export async function swaggerValidate(doc: Record<string, unknown>): Promise<void> {
  const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
  await SwaggerParser.validate(structuredClone(doc) as never);
}

// One parser per process: it compiles the AsyncAPI schemas on its first document (~1 s of CPU) and
// keeps them for the next. Loaded on first use (~0.3 s of CPU): the OpenAPI checks never need it.
let parser: Parser | undefined;
const asyncApiParser = async (): Promise<Parser> => (parser ??= new (await import('@asyncapi/parser')).Parser());

/** @asyncapi/parser's diagnostics of severity error (0), as "code at path: message". */
export async function asyncApiErrors(doc: Record<string, unknown>): Promise<string[]> {
  const { diagnostics } = await (await asyncApiParser()).parse(JSON.stringify(doc));
  return diagnostics.filter((d) => d.severity === 0).map((d) => `${String(d.code)} at ${d.path.join('.')}: ${d.message}`);
}
