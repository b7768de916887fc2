// Parse one YAML file keeping positions, so later checks can name the line of any value.
//
// YAML parsing is most of a cold catalogue load (~0.7 s for the exchange's 40 files). An edit
// changes one file; so with a cache folder, each file's parse — its data and the line of every
// value — is kept by the hash of its text, and a reload, lint or diff after an edit parses only
// the files that changed.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Document, Node } from 'yaml';
import type { Problem } from './problems.js';
import { markUsed, pruneLeastRecent } from './cache-folder.js';
import { writeAtomically } from './write-atomically.js';

export interface ParsedYaml {
  file: string;
  data: unknown;
  /** Line (1-based) of the value at a JSON path, or of its nearest existing parent. */
  lineOf(path: readonly (string | number)[]): number;
}

// Loaded on first use: a start-up served from the JSON cache never pays for the YAML library.
const require = createRequire(import.meta.url);

/**
 * What the loader parses, and what every tool reading a YAML or JSON input parses with (the release
 * import's sources): at most 1000 alias expansions (yaml's count, against alias bombs: a 688-byte
 * file expanding to gigabytes) and values nested at most 64 deep (the catalogue's files reach 12,
 * GitHub's and the exchange's OpenAPI descriptions 19; far deeper nesting overflows the stack of
 * yaml's parser and of every walk after it).
 */
export const YAML_LIMITS = { maxAliasCount: 1000, maxDepth: 64 } as const;

/** Why `data` is nested deeper than YAML_LIMITS.maxDepth, or null (walked without recursion). */
export function depthProblem(data: unknown, maxDepth: number = YAML_LIMITS.maxDepth): string | null {
  const stack: [unknown, number][] = [[data, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > maxDepth) return `values nested more than ${maxDepth} deep (the limit of every YAML and JSON input the tools read)`;
    for (const child of Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return null;
}

/** Bump when what is kept per file changes (2: files nested deeper than YAML_LIMITS are refused). */
const FORMAT = 'yaml-parse-2';
/** Kept parses beyond this many: the least recently written half goes. */
const KEEP = 2000;
const SEP = '\u0001';

interface Kept {
  data: unknown;
  /** Path (keys joined by SEP) → line of the value there. */
  lines: Record<string, number>;
}

export function parseYamlFile(file: string, text: string, problems: Problem[], cacheDir: string | false = false): ParsedYaml | null {
  const keptFile = cacheDir === false ? null : join(cacheDir, 'yaml', `${key(text)}.json`);
  if (keptFile) {
    try {
      const kept = fromKept(file, JSON.parse(readFileSync(keptFile, 'utf8')) as Kept);
      markUsed(keptFile);
      return kept;
    } catch {
      // not kept yet (or unreadable): parse
    }
  }
  const { LineCounter, parseDocument, isMap, isSeq, isScalar } = require('yaml') as typeof import('yaml');
  const counter = new LineCounter();
  const doc: Document = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length) {
    for (const e of doc.errors) {
      problems.push({ file, line: counter.linePos(e.pos[0]).line, message: `invalid YAML: ${e.message.split('\n')[0]}` });
    }
    return null;
  }
  // The line of every value, by path: what doc.getIn(path, true) finds, collected in one walk.
  // Paths are keys joined by SEP; the root is ''.
  const lines: Record<string, number> = Object.create(null);
  let tooDeep: number | null = null;
  const walk = (node: Node | null | undefined, path: string, depth: number): void => {
    if (!node || tooDeep !== null) return;
    if (node.range) lines[path] = counter.linePos(node.range[0]).line;
    const child = (k: string | number) => (path === '' ? String(k) : `${path}${SEP}${k}`);
    if ((isMap(node) || isSeq(node)) && depth > YAML_LIMITS.maxDepth) tooDeep = lines[path] ?? 1;
    else if (isMap(node)) for (const pair of node.items) walk(pair.value as Node | null, child(String(isScalar(pair.key) ? pair.key.value : pair.key)), depth + 1);
    else if (isSeq(node)) node.items.forEach((item, i) => walk(item as Node | null, child(i), depth + 1));
  };
  walk(doc.contents as Node | null, '', 1);
  if (tooDeep !== null) {
    problems.push({ file, line: tooDeep, message: `invalid YAML: values nested more than ${YAML_LIMITS.maxDepth} deep` });
    return null;
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: YAML_LIMITS.maxAliasCount });
  } catch (e) {
    // An alias bomb (yaml's limit: "Excessive alias count…"): the file's problem, not a crash of lint.
    problems.push({ file, line: 1, message: `invalid YAML: ${(e as Error).message}` });
    return null;
  }
  const kept: Kept = { data, lines };
  if (keptFile) keep(keptFile, kept);
  return fromKept(file, kept);
}

function fromKept(file: string, kept: Kept): ParsedYaml {
  const { lines } = kept;
  const lineOf = (path: readonly (string | number)[]): number => {
    for (let n = path.length; n >= 0; n--) {
      const line = lines[path.slice(0, n).join(SEP)];
      if (line !== undefined) return line;
    }
    return 1;
  };
  return { file, data: kept.data, lineOf };
}

/**
 * The data of a YAML text without positions (an input the catalogue tools read, such as a 1 MB
 * OpenAPI document, ~0.7 s to parse), kept by the hash of the text and the parse options. Parsed
 * with the loader's YAML_LIMITS unless `options` says otherwise (the tests' own readings of vendored
 * files); a text beyond them throws (yaml's ReferenceError for aliases, a RangeError for depth).
 */
export function parseYamlData(text: string, cacheDir: string | false, options: { maxAliasCount?: number } = { maxAliasCount: YAML_LIMITS.maxAliasCount }): unknown {
  const keptFile = cacheDir === false ? null : join(cacheDir, 'yaml', `${key(`data only ${JSON.stringify(options)}\0${text}`)}.json`);
  if (keptFile) {
    try {
      const { data } = JSON.parse(readFileSync(keptFile, 'utf8')) as Kept;
      markUsed(keptFile);
      return data;
    } catch {
      // not kept yet (or unreadable): parse
    }
  }
  const { parse } = require('yaml') as typeof import('yaml');
  const data: unknown = parse(text, options);
  const deep = depthProblem(data);
  if (deep) throw new RangeError(deep);
  if (keptFile) keep(keptFile, { data, lines: {} });
  return data;
}

function key(text: string): string {
  const { version } = require('yaml/package.json') as { version: string };
  return createHash('sha256').update(FORMAT).update('\0').update(version).update('\0').update(text).digest('hex').slice(0, 32);
}

/** Write a parse for the next load; values JSON cannot hold (e.g. .inf) are never kept. */
function keep(file: string, kept: Kept): void {
  let json: string;
  try {
    json = JSON.stringify(kept, (_k, v: unknown) => {
      if (typeof v === 'number' && !Number.isFinite(v)) throw new Error('not JSON');
      if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null) throw new Error('not JSON');
      return v;
    });
  } catch {
    return;
  }
  try {
    writeAtomically(file, json);
    pruneLeastRecent(join(file, '..'), () => true, KEEP, KEEP / 2);
  } catch {
    // an unwritable cache folder only costs the next load the same parse
  }
}

