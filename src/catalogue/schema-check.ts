// Load-time compilation of every parameter and body schema, with the runtime's own ajv options
// (validators.ts), so a schema ajv rejects is found before any request reaches it. A second,
// strict compile finds what the runtime would silently ignore: an unknown keyword (a typo such as
// `tpye` or `minimun`), an unknown format, a keyword that does not apply to the declared type.
// The verdicts are kept in the cache folder (schema-checks-<key>.json), keyed by the schema's text
// and everything that decides a verdict (ajv's version, this module and validators.ts): compiling
// was ~80 % of a load that misses the model cache (an edited copy, a reload after an edit, a diff's
// base, a lint), ~350 ms of ajv code generation for the exchange's unchanged schemas.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Ajv, Options } from 'ajv';
import { createBodyAjv, createParamAjv } from './validators.js';
import { pruneLeastRecent } from './cache-folder.js';
import { writeAtomically } from './write-atomically.js';

const require = createRequire(import.meta.url);
/** Kept verdicts beyond this many (~60 bytes each): the file starts afresh with the last load's. */
const KEEP = 50_000;
/** Verdict files (one per ajv version and checking code) kept in a cache folder. */
const KEPT_VERDICT_FILES = 4;
/** The kept verdicts of each cache file, read once per process and shared by its loads (reloads). */
const keptByFile = new Map<string, Map<string, string | null>>();

/** Strict on everything that hides a typo; union types are allowed at run time, so here too. */
const STRICT: Options = {
  strict: true, strictTypes: true, strictTuples: false, strictRequired: false, allowUnionTypes: true, logger: false,
};

export class SchemaCheck {
  private ajv: { param: Ajv; body: Ajv; strictParam: Ajv; strictBody: Ajv } | null = null;
  /** Schemas repeat a lot (`{type: string}`): compile each distinct one once. */
  private seen = new Map<string, string | null>();
  /** Verdicts kept in the cache folder, by hash of `kind\0schema text`; null without a cache folder. */
  private kept: Map<string, string | null> | null = null;
  private keptFile: string | null = null;
  private added = 0;

  constructor(cacheDir: string | false = false) {
    if (cacheDir === false) return;
    this.keptFile = join(cacheDir, `schema-checks-${verdictKey()}.json`);
    let kept = keptByFile.get(this.keptFile);
    if (!kept) {
      kept = new Map();
      try {
        for (const [k, v] of Object.entries(JSON.parse(readFileSync(this.keptFile, 'utf8')) as Record<string, string | null>)) kept.set(k, v);
      } catch {
        // none kept yet, or unreadable: every schema is compiled
      }
      keptByFile.set(this.keptFile, kept);
    }
    this.kept = kept;
  }

  /** Write the verdicts this check added, for the next load (another process's included). */
  save(): void {
    if (!this.kept || !this.keptFile || this.added === 0) return;
    if (this.kept.size > KEEP) {
      this.kept.clear();
      for (const [key, v] of this.seen) this.kept.set(hashOf(key), v);
    }
    try {
      writeAtomically(this.keptFile, JSON.stringify(Object.fromEntries(this.kept)));
    } catch {
      return; // a read-only cache folder only costs the next load the same compiles
    }
    // Verdicts of an older ajv or older checking code (a few kept: checkouts may share a cache folder).
    pruneLeastRecent(dirname(this.keptFile), (n) => n.startsWith('schema-checks-') && n.endsWith('.json'), KEPT_VERDICT_FILES);
    this.added = 0;
  }

  private instances() {
    // logger: false only silences ajv's console warnings; compile semantics are the runtime's.
    this.ajv ??= {
      param: createParamAjv({ logger: false }), body: createBodyAjv({ logger: false }),
      strictParam: createParamAjv(STRICT), strictBody: createBodyAjv(STRICT),
    };
    return this.ajv;
  }

  /** A problem with a parameter schema (as the runtime builds it), or null. */
  parameter(schema: Record<string, unknown>): string | null {
    return this.check('param', schema);
  }

  /** A problem with a body schema (with the service's $defs merged in), or null. */
  body(schema: Record<string, unknown>): string | null {
    return this.check('body', schema);
  }

  private check(kind: 'param' | 'body', schema: Record<string, unknown>): string | null {
    const key = `${kind}\0${JSON.stringify(schema)}`;
    if (this.seen.has(key)) return this.seen.get(key)!;
    const hash = this.kept ? hashOf(key) : '';
    let problem = this.kept?.get(hash);
    if (problem === undefined) {
      const ajv = this.instances();
      problem = compileProblem(kind === 'param' ? ajv.param : ajv.body, schema, 'does not compile');
      problem ??= compileProblem(kind === 'param' ? ajv.strictParam : ajv.strictBody, schema, 'has a part the gateway would ignore');
      if (this.kept) { this.kept.set(hash, problem); this.added++; }
    }
    this.seen.set(key, problem);
    return problem;
  }
}

const hashOf = (key: string): string => createHash('sha256').update(key).digest('base64url').slice(0, 22);

let verdictKeyMemo: string | undefined;
/** What decides a verdict: ajv's version and the code that builds the schemas' ajv instances and compiles them. */
function verdictKey(): string {
  if (verdictKeyMemo) return verdictKeyMemo;
  const h = createHash('sha256').update((require('ajv/package.json') as { version: string }).version);
  for (const m of ['./schema-check.js', './validators.js']) h.update('\0').update(readFileSync(new URL(m, import.meta.url)));
  return (verdictKeyMemo = h.digest('hex').slice(0, 16));
}

function compileProblem(ajv: Ajv, schema: Record<string, unknown>, what: string): string | null {
  if (!ajv.validateSchema(schema)) {
    // The meta-schema reports a bad `type` three times (enum, array, anyOf): the first error per place says it.
    const byPlace = new Map<string, string>();
    for (const e of ajv.errors ?? []) {
      if (byPlace.has(e.instancePath)) continue;
      const at = e.instancePath ? e.instancePath.slice(1).replaceAll('/', '.') : '(root)';
      const value = JSON.stringify(valueAt(schema, e.instancePath));
      const allowed = (e.params as { allowedValues?: unknown[] }).allowedValues;
      byPlace.set(e.instancePath, `${at}: ${value} ${allowed ? `must be one of ${allowed.join(', ')}` : e.message}`);
    }
    return `schema ${what}: ${[...byPlace.values()].join('; ')}`;
  }
  try {
    ajv.compile(schema);
    return null;
  } catch (e) {
    return `schema ${what}: ${(e as Error).message.replace(/^strict mode: /, '')}`;
  } finally {
    ajv.removeSchema(schema);
  }
}

function valueAt(schema: unknown, pointer: string): unknown {
  return pointer.split('/').slice(1).reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k.replaceAll('~1', '/').replaceAll('~0', '~')] : undefined), schema);
}
