// Temporary folders for tests. Each is made under the OS temp folder, which test/run.mjs points at
// a folder of its own per run (TMPDIR) and checks is empty afterwards; every folder made here is
// removed when the test file's process exits, passed or failed, so no test has to remember to.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Set<string>();

/** A new empty folder `<tmp>/<prefix>XXXXXX`, removed at exit (or earlier with removeTempDir). */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  made.delete(dir);
}

process.on('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
