// Build one service of the model from its parsed YAML files, checking schema and cross-references:
// each file is sorted by kind and checked against its kind's JSON Schema here, then built by its
// kind's module (service.ts orders them).
import type { Service } from '../model.js';
import type { Problem } from '../problems.js';
import { fileValidators } from '../file-validators.js';
import { kindOf, KNOWN_FILES, type Kind } from '../file-kinds.js';
import { ServiceBuild, type RawFile } from './context.js';
import { compact, pointerPath, schemaMessage, withoutFaultyItems } from './schema-errors.js';
import { buildFrom } from './service.js';

export type { RawFile };

export function buildService(
  id: string, raw: RawFile[], schema: Record<string, unknown>, problems: Problem[], warnings: Problem[], cacheDir: string | false = false,
): Service | null {
  const v = fileValidators(schema, cacheDir);
  const byKind = new Map<Kind, RawFile[]>();
  for (const f of raw) {
    const kind = kindOf(f.path);
    if (!kind) {
      warnings.push({ file: f.file, line: 1, message: `not a catalogue file name (expected ${KNOWN_FILES}); ignored` });
      continue;
    }
    const validate = v[kind];
    if (!validate(f.data)) {
      const errors = validate.errors ?? [];
      for (const e of errors) {
        if (e.keyword === 'oneOf' || e.keyword === 'if' || e.keyword === 'propertyNames') continue; // the other errors say more
        const path = pointerPath(e.instancePath);
        // Point at the offending field itself when there is one (unknown field or key), else at the value.
        const field = (e.params as { additionalProperty?: string }).additionalProperty ?? e.propertyName;
        if (field !== undefined) path.push(field);
        problems.push({ file: f.file, line: f.lineOf(path), message: schemaMessage(e, f.data) });
      }
      // Keep checking the rest of the file: a schema error in one item must not hide a broken
      // cross-reference in another. The faulty items are left out; if what remains still breaks
      // the file's shape, the whole file is.
      const kept = withoutFaultyItems(f.data, errors);
      if (!validate(compact(kept))) continue;
      f.data = kept;
    }
    byKind.set(kind, [...(byKind.get(kind) ?? []), f]);
  }
  const serviceFile = byKind.get('service')?.[0];
  if (!serviceFile) {
    const any = raw[0];
    if (any) problems.push({ file: any.file.replace(/[^/]*$/, 'service.yaml'), line: 0, message: `service folder "${id}" has no valid service.yaml` });
    return null;
  }
  return buildFrom(new ServiceBuild(id, byKind, problems, warnings, cacheDir), serviceFile);
}
