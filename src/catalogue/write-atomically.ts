// Files of the cache folder are written whole under a name of their own, then renamed into place:
// rename is atomic, so processes reading at the same time (replicas starting together, test files
// in parallel) see the old file or the new one, never half of one.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

// worker_threads loads on the first write (rare: a cache miss), not on every start-up (~3 ms).
const threadId = () => (createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads')).threadId;

/** Write `data` to `file` (creating its folder); throws what the file system throws. */
export function writeAtomically(file: string, data: string, mode?: number): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${threadId()}.tmp`; // a worker thread shares the pid
  writeFileSync(tmp, data, mode === undefined ? undefined : { mode });
  renameSync(tmp, file);
}
