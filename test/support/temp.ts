// Temporary folders for tests. Each is made under the OS temp folder, which test/run.mjs points at
// a folder of its own per run (TMPDIR) and checks is empty afterwards; every folder made here is
// removed when the process exits, passed or failed, so no test has to remember to. Where test/run.mjs
// runs several files in one process (test/lane.mjs), a folder made by a shared module at its import
// (test/signing/support.ts) serves every later file of that process: they go at its exit too.
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

/** The folders made here and not removed yet (test/lane.mjs tells the runner they are accounted for). */
export const tempDirsMade = (): string[] => [...made];

process.on('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
