// Files of the cache folder are written whole under a name of their own, then renamed into place:
// rename is atomic, so processes reading at the same time (replicas starting together, test files
// in parallel) see the old file or the new one, never half of one.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { threadId } from 'node:worker_threads';

/** Write `data` to `file` (creating its folder); throws what the file system throws. */
export function writeAtomically(file: string, data: string, mode?: number): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${threadId}.tmp`; // a worker thread shares the pid
  writeFileSync(tmp, data, mode === undefined ? undefined : { mode });
  renameSync(tmp, file);
}
