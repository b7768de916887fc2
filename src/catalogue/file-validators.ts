// The validators of the catalogue's file kinds (service.yaml, releases.yaml, …), compiled from
// catalogue/schema/catalogue.schema.json. Generating them is most of a small catalogue's cold load
// (~300 ms of ajv code generation, paid again by every lint, reload, and diff of an edited copy),
// so ajv's standalone code for them is kept in the cache folder, keyed by the schema's text and
// ajv's version, and later loads only require that module. Without a cache folder they are
// compiled in memory as before.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { markUsed, pruneLeastRecent } from './cache-folder.js';
import { writeAtomically } from './write-atomically.js';
import { FILE_KINDS, KINDS, type Kind } from './file-kinds.js';

export type { Kind };
export type FileValidators = Record<Kind, ValidateFunction>;
const require = createRequire(import.meta.url);
const memo = new Map<string, FileValidators>();
/** Generated validator modules kept (one per schema text and ajv version: they change with the schema). */
const KEPT_VALIDATORS = 8;

export function fileValidators(schema: Record<string, unknown>, cacheDir: string | false): FileValidators {
  const text = JSON.stringify(schema);
  const hit = memo.get(text);
  if (hit) return hit;
  const ajvVersion = (require('ajv/package.json') as { version: string }).version;
  const key = createHash('sha256').update(ajvVersion).update('\0').update(text).digest('hex').slice(0, 16);
  const file = cacheDir === false ? null : join(cacheDir, `file-validators-${key}.cjs`);
  let out: FileValidators | undefined;
  if (file) {
    try {
      out = require(file) as FileValidators;
      markUsed(file);
    } catch {
      // absent or unreadable: generate below
    }
  }
  out ??= generate(schema, file);
  memo.set(text, out);
  return out;
}

function generate(schema: Record<string, unknown>, file: string | null): FileValidators {
  const { Ajv2020 } = require('ajv/dist/2020') as typeof import('ajv/dist/2020.js');
  const ajv = new Ajv2020({ allErrors: true, strict: false, code: { source: file !== null } });
  ajv.addSchema(schema, 'catalogue');
  const refs = Object.fromEntries(KINDS.map((k) => [k, `catalogue#/$defs/${FILE_KINDS[k].def}`])) as Record<Kind, string>;
  const compiled = Object.fromEntries(KINDS.map((k) => [k, ajv.compile({ $ref: refs[k] })])) as FileValidators;
  if (!file) return compiled;
  try {
    const standalone = (require('ajv/dist/standalone') as { default: (a: unknown, refs: Record<string, string>) => string }).default;
    // The compiled { $ref } wrappers above are what the standalone module exports, one per kind.
    // The generated code requires ajv's runtime helpers by package name; the cache folder need not
    // be under this package's node_modules, so they are named by absolute path.
    const code = standalone(ajv, Object.fromEntries(KINDS.map((k) => [k, refs[k]])))
      .replace(/require\("(ajv\/[^"]+)"\)/g, (_m, id: string) => `require(${JSON.stringify(require.resolve(id))})`);
    writeAtomically(file, code);
    pruneLeastRecent(dirname(file), (n) => n.startsWith('file-validators-'), KEPT_VALIDATORS);
  } catch {
    // an unwritable cache folder only costs the next load the same compile
  }
  return compiled;
}
