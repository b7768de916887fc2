// Load and check a catalogue on a worker thread: a changed catalogue means parsing its YAML and
// compiling every schema (a second or two), which must not stall a gateway that is serving while
// it reloads. The worker fills the JSON cache; the caller then loads from the cache in milliseconds.
import { Worker } from 'node:worker_threads';
import { CatalogueError, type Problem } from './problems.js';

const WORKER = new URL('./load-worker.js', import.meta.url);

/** Resolves once `dir` loaded and checked (and is cached); rejects with CatalogueError listing every problem. */
export function checkInWorker(dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { workerData: { dir } });
    worker.once('message', (m: { ok: true } | { ok: false; problems: Problem[]; warnings: Problem[] }) => {
      if (m.ok) resolve();
      else reject(new CatalogueError(m.problems, m.warnings));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => { if (code !== 0) reject(new Error(`catalogue check worker exited with ${code}`)); });
  });
}
