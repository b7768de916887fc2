// What a file's JSON Schema errors say, and the file without the items they point into, so the
// rest of the file is still built and checked.
import type { ErrorObject } from 'ajv/dist/2020.js';

export function schemaMessage(e: ErrorObject, data: unknown): string {
  const where = e.instancePath ? `${e.instancePath.slice(1).replaceAll('/', '.')}: ` : '';
  if (e.propertyName !== undefined) {
    const allowed = (e.params as { allowedValues?: unknown[] }).allowedValues;
    return `${where}unknown key "${e.propertyName}"${allowed ? `; valid: ${allowed.map(String).join(', ')}` : ` (${e.message})`}`;
  }
  if (e.keyword === 'additionalProperties') return `${where}unknown field "${(e.params as { additionalProperty: string }).additionalProperty}"`;
  if (e.keyword === 'required') return `${where}missing required field "${(e.params as { missingProperty: string }).missingProperty}"`;
  if (e.keyword === 'enum') return `${where}must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map(String).join(', ')}`;
  // A pattern or length refused: name the value too (JSON-quoted, so a control character shows as its escape).
  if (/^(pattern|maxLength|minLength)$/.test(e.keyword)) {
    const value = pointerPath(e.instancePath).reduce<any>((o, k) => (o && typeof o === 'object' ? o[k] : undefined), data);
    if (typeof value === 'string') return `${where}${e.message} (got ${JSON.stringify(clipped(value))})`;
  }
  return `${where}${e.message}`;
}

const clipped = (s: string) => (s.length > 64 ? `${s.slice(0, 64)}…` : s);

/** "/endpoints/3/path" → ['endpoints', 3, 'path'] */
export function pointerPath(pointer: string): (string | number)[] {
  return pointer.split('/').slice(1).map((s) => (/^\d+$/.test(s) ? Number(s) : s.replaceAll('~1', '/').replaceAll('~0', '~')));
}

/**
 * A copy of a file's data without the items schema errors point into: the first list item on the
 * error's path (an endpoint, a release, a parameter of service.yaml…), or the unknown field or key
 * itself, or else the faulty value. List items become holes, not removals, so the remaining items
 * keep their index and lineOf() still finds them; the builder skips holes.
 */
export function withoutFaultyItems(data: unknown, errors: ErrorObject[]): unknown {
  const copy = structuredClone(data);
  for (const e of errors) {
    if (e.keyword === 'propertyNames') continue; // its inner errors name the key (propertyName)
    const path = pointerPath(e.instancePath);
    const field = (e.params as { additionalProperty?: string }).additionalProperty ?? e.propertyName;
    const firstItem = path.findIndex((k) => typeof k === 'number');
    const cut = firstItem >= 0 ? path.slice(0, firstItem + 1)
      : field !== undefined ? [...path, field]
      : MAPS_OF_ITEMS.has(String(path[0])) && path.length >= 2 ? path.slice(0, 2)
      : path;
    if (cut.length === 0) continue; // the file itself is wrong (missing field, wrong type): re-validation drops it
    const parent = cut.slice(0, -1).reduce<any>((o, k) => (o && typeof o === 'object' ? o[k] : undefined), copy);
    if (parent && typeof parent === 'object') delete parent[cut[cut.length - 1]];
  }
  return copy;
}

/** Top-level fields that map names to items (an enum, a placeholder, a named schema). */
const MAPS_OF_ITEMS = new Set(['enums', 'placeholders', 'schemas']);

/** The data with list holes closed, to re-check the shape of what is left. */
export function compact(data: unknown): unknown {
  if (Array.isArray(data)) return data.filter(() => true).map(compact);
  if (data && typeof data === 'object') return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, compact(v)]));
  return data;
}
