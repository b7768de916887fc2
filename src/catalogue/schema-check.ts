// Load-time compilation of every parameter and body schema, with the runtime's own ajv options
// (validators.ts), so a schema ajv rejects is found before any request reaches it. A second,
// strict compile finds what the runtime would silently ignore: an unknown keyword (a typo such as
// `tpye` or `minimun`), an unknown format, a keyword that does not apply to the declared type.
import type { Ajv, Options } from 'ajv';
import { createBodyAjv, createParamAjv } from './validators.js';

/** Strict on everything that hides a typo; union types are allowed at run time, so here too. */
const STRICT: Options = {
  strict: true, strictTypes: true, strictTuples: false, strictRequired: false, allowUnionTypes: true, logger: false,
};

export class SchemaCheck {
  private ajv: { param: Ajv; body: Ajv; strictParam: Ajv; strictBody: Ajv } | null = null;
  /** Schemas repeat a lot (`{type: string}`): compile each distinct one once. */
  private seen = new Map<string, string | null>();

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
    const ajv = this.instances();
    let problem = compileProblem(kind === 'param' ? ajv.param : ajv.body, schema, 'does not compile');
    problem ??= compileProblem(kind === 'param' ? ajv.strictParam : ajv.strictBody, schema, 'has a part the gateway would ignore');
    this.seen.set(key, problem);
    return problem;
  }
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
