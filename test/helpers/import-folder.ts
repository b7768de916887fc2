// Folders for the release-import tests: an empty catalogue to import into, the bytes of a folder (a
// second run of an import must change none), and a copy of catalogue/schema that admits issue 44's
// path parameters (`in: path`, `multiSegment`), for
// imports of templated operations while the loader that reads them is on another branch. Where the
// schema already has them (once that branch is merged) the copy is the schema as it is, so the tests
// that use it then run against the real thing.
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../support/processes.js';
import { tempDir } from '../support/temp.js';

export function copySchemaWithPathParameters(catalogueDir: string): void {
  const dir = join(catalogueDir, 'schema');
  cpSync(join(ROOT, 'catalogue/schema'), dir, { recursive: true });
  const file = join(dir, 'catalogue.schema.json');
  const schema = JSON.parse(readFileSync(file, 'utf8'));
  const props = schema.$defs.parameter.properties;
  if (!props.in.enum.includes('path')) props.in.enum.push('path');
  props.multiSegment ??= { type: 'boolean', description: 'a path parameter whose value may hold "/" (issue 44)' };
  writeFileSync(file, `${JSON.stringify(schema, null, 2)}\n`);
}

/** A catalogue folder (schema with path parameters) with an empty service folder `id`. */
export function emptyCatalogue(id: string, prefix = 'release-import-'): { dir: string; serviceDir: string } {
  const dir = tempDir(prefix);
  copySchemaWithPathParameters(dir);
  mkdirSync(join(dir, id));
  return { dir, serviceDir: join(dir, id) };
}

/** Every file of a folder with its bytes. */
export function folderBytes(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) out.set(join(e.parentPath, e.name), readFileSync(join(e.parentPath, e.name), 'latin1'));
  }
  return out;
}
