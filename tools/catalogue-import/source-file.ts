// Reading the file an import is given (an OpenAPI description, a method table): bounded before it is
// parsed, since it may come from anywhere.
//
// - its size, from the file system before a byte is read: at most SOURCE_LIMITS.maxMiB (GitHub's
//   whole description is 12 MB; a 200 MB file took 3 GB to parse), --max-source-mib to raise it;
// - its bytes must be UTF-8 (a TextDecoder that refuses, so no byte silently becomes U+FFFD in the
//   written catalogue);
// - JSON (text starting with `{`) or YAML, parsed with the loader's limits (YAML_LIMITS: alias
//   expansions and depth);
// - at most SOURCE_LIMITS.maxOperations operations (GitHub's whole description has ~1 100;
//   50 000 took 45 s and 1.9 GB), --max-operations to raise it.
// Every refusal is an InputError: one line naming the file, the bound and how to raise it; exit 2.
import { readFileSync, statSync } from 'node:fs';
import { InputError } from '../../src/input-error.js';
import { utf8Text } from '../../src/utf8-text.js';
import { depthProblem, parseYamlData, YAML_LIMITS } from '../../src/catalogue/yaml-file.js';

export interface SourceLimits {
  /** Largest source file read, in MiB. */
  maxMiB: number;
  /** Most operations (OpenAPI method and path pairs, method-table rows) a source may hold. */
  maxOperations: number;
}

export const SOURCE_LIMITS: SourceLimits = { maxMiB: 64, maxOperations: 5000 };

/** The text of `file`: refused when larger than the bound (checked before reading) or not UTF-8. */
export function readSourceText(file: string, limits: SourceLimits = SOURCE_LIMITS): string {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (e) {
    throw new InputError(`${file}: cannot read it: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (size > limits.maxMiB * 1024 * 1024) {
    throw new InputError(`${file}: ${(size / 1024 / 1024).toFixed(1)} MiB is larger than the ${limits.maxMiB} MiB an import reads (--max-source-mib <n> to raise it)`);
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    throw new InputError(`${file}: cannot read it: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return utf8Text(file, bytes);
}

/** The data of a source text: JSON when it starts with `{` (JSON.parse is ~100× faster on 12 MB), else YAML; both within YAML_LIMITS. */
export function parseSource(file: string, text: string, cacheDir: string | false): unknown {
  let data: unknown;
  if (/^\s*\{/.test(text)) {
    try {
      data = JSON.parse(text);
    } catch (e) {
      throw new InputError(`${file}: not valid JSON: ${(e as Error).message}`);
    }
    const deep = depthProblem(data);
    if (deep) throw new InputError(`${file}: ${deep}`);
  } else {
    try {
      data = parseYamlData(text, cacheDir, { maxAliasCount: YAML_LIMITS.maxAliasCount });
    } catch (e) {
      const m = (e as Error).message.split('\n')[0];
      const why = /alias/i.test(m) ? `more than ${YAML_LIMITS.maxAliasCount} alias expansions (the catalogue loader's limit against alias bombs)` : m;
      throw new InputError(`${file}: invalid YAML: ${why}`);
    }
  }
  return data;
}

/** Refused when a source holds more operations than the bound. */
export function checkOperationCount(file: string, count: number, limits: SourceLimits = SOURCE_LIMITS): void {
  if (count > limits.maxOperations) {
    throw new InputError(`${file}: ${count} operations are more than the ${limits.maxOperations} an import reads (--max-operations <n> to raise it)`);
  }
}

/**
 * `read()`, with what a reader does not foresee in a hostile source (a list where an object belongs,
 * …) refused as an input naming `file` (one line, exit 2) instead of a crash with a stack trace.
 */
export function readingInput<T>(file: string, what: string, read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof InputError || !(e instanceof Error) || e.name === 'UsageError') throw e;
    throw new InputError(`${file}: not ${what} the import can read: ${e.message.split('\n')[0]}`);
  }
}
