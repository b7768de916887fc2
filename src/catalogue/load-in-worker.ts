// Load and check a catalogue on a worker thread: a changed catalogue means reading and parsing its
// YAML, compiling every schema and building the model (a second or more for a large one), which must
// not stall a gateway that is serving while it reloads. The worker hands back the loaded catalogue
// as JSON pieces (load-transfer.ts), so the request loop only parses them, a slice per turn.
import { relative } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { LoadOptions, LoadResult } from './load.js';
import { assembleTransfer, type Transfer } from './load-transfer.js';
import { CatalogueError, CatalogueReadError, type Problem } from './problems.js';

const WORKER = new URL('./load-worker.js', import.meta.url);
/**
 * The worker's own heap ceiling: a catalogue too large to load (a 1 GB YAML file) fails that load
 * — the reload is refused — instead of taking the whole process past its heap limit.
 */
const WORKER_HEAP_MB = 2048;

export interface OffLoopOptions extends LoadOptions {
  /** The loading worker's heap ceiling in MiB (default 2048); past it the load fails as "too large". */
  workerHeapMb?: number;
}

export interface LoaderRequest {
  dir: string;
  options: LoadOptions;
}
export type LoaderReply =
  | { ok: true; loaded: Transfer }
  | { ok: false; problems: Problem[]; warnings: Problem[]; unreadable: boolean };

/**
 * loadCatalogue(dir, options) on a worker thread: resolves with the same LoadResult, rejects with
 * CatalogueError (CatalogueReadError when the folder cannot be read) listing every problem. The
 * request loop's only work is parsing the result, in slices of a few milliseconds (see
 * test/catalogue/load-off-loop.test.ts).
 */
export async function loadCatalogueOffLoop(dir: string, options: OffLoopOptions = {}): Promise<LoadResult> {
  return assembleTransfer(await runLoader(dir, options));
}

function runLoader(dir: string, { workerHeapMb = WORKER_HEAP_MB, ...options }: OffLoopOptions): Promise<Transfer> {
  return new Promise((resolve, reject) => {
    const request: LoaderRequest = { dir, options };
    const worker = new Worker(WORKER, { workerData: request, resourceLimits: { maxOldGenerationSizeMb: workerHeapMb } });
    let settled = false;
    worker.once('message', (m: LoaderReply) => {
      settled = true;
      if (m.ok) resolve(m.loaded);
      else reject(m.unreadable ? new CatalogueReadError(m.problems) : new CatalogueError(m.problems, m.warnings));
    });
    worker.once('error', (e: NodeJS.ErrnoException) => {
      settled = true;
      const tooLarge = e.code === 'ERR_WORKER_OUT_OF_MEMORY';
      reject(tooLarge ? new CatalogueError([{ file: relative(process.cwd(), dir) || '.', line: 0, message: `the catalogue is too large to load (over ${workerHeapMb} MiB of heap); nothing was applied` }]) : e);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`catalogue load worker exited with ${code} before answering`));
    });
  });
}
