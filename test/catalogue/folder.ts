// A catalogue folder made for a test, and the problems its load reports (shared by the load tests).
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as assert from '../support/assert.js';
import { loadCatalogue, type LoadOptions } from '../../src/catalogue/load.js';
import { CatalogueError, formatProblem } from '../../src/catalogue/problems.js';
import { ROOT } from '../support/processes.js';
import { tempDir } from '../support/temp.js';

/** A temporary catalogue folder holding the given files, and the shipped JSON Schema unless `files` brings its own. */
export function catalogueFolder(files: Record<string, string>, prefix = 'cat-'): string {
  const dir = tempDir(prefix);
  cpSync(join(ROOT, 'catalogue/schema'), join(dir, 'schema'), { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/**
 * A temporary copy of the shipped catalogue's schema and of the services named (default: the
 * exchange's alone), for a test that edits one service: a load builds only what the test reads
 * (the whole catalogue costs a third more to build, the github service's part).
 */
export function shippedCopy(prefix: string, services: readonly string[] = ['exchange']): string {
  const dir = tempDir(prefix);
  for (const d of ['schema', ...services]) cpSync(join(ROOT, 'catalogue', d), join(dir, d), { recursive: true });
  return dir;
}

/** Every problem of a catalogue that must not load, as `file:line: message`. */
export function problemsOf(dir: string, options: LoadOptions = { modelCache: false }): string[] {
  try {
    loadCatalogue(dir, options);
  } catch (e) {
    if (e instanceof CatalogueError) return e.problems.map(formatProblem);
    throw e;
  }
  assert.unreachable('the catalogue should not load');
  return [];
}
