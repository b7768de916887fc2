// Folders for the release-import tests: an empty catalogue to import into, and the bytes of a folder
// (a second run of an import must change none).
import { cpSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../support/processes.js';
import { tempDir } from '../support/temp.js';

/** A copy of catalogue/schema in `catalogueDir`. */
export function copySchema(catalogueDir: string): void {
  cpSync(join(ROOT, 'catalogue/schema'), join(catalogueDir, 'schema'), { recursive: true });
}

/** A catalogue folder (the schema only) with an empty service folder `id`. */
export function emptyCatalogue(id: string, prefix = 'release-import-'): { dir: string; serviceDir: string } {
  const dir = tempDir(prefix);
  copySchema(dir);
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
