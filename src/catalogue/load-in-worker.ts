// Load and check a catalogue on a worker thread: a changed catalogue means reading and parsing its
// YAML, compiling every schema and building the model (a second or more for a large one), which must
// not stall a gateway that is serving while it reloads. The worker hands back the loaded catalogue
// as JSON pieces (load-transfer.ts), so the request loop only parses them, a slice per turn.
// One loader thread serves every load and ends after a few idle seconds: a thread per load left the
// allocator's pages of each dead thread behind (RSS +8 to +11 MiB over 950 reloads, live heap flat).
import { createRequire } from 'node:module';
import { relative } from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { LoadOptions, LoadResult } from './load.js';
import { assembleTransfer, type Transfer } from './load-transfer.js';
import { CatalogueError, CatalogueReadError, type Problem } from './problems.js';

const WORKER = new URL('./load-worker.js', import.meta.url);
/**
 * The worker's own heap ceiling: a catalogue too large to load (a 1 GB YAML file) fails that load
 * — the reload is refused — instead of taking the whole process past its heap limit.
 */
const WORKER_HEAP_MB = 2048;
/** An idle loader thread ends after this long (a burst of reloads reuses it; a quiet gateway holds none). */
export const LOADER_IDLE_MS = 5000;

export interface OffLoopOptions extends LoadOptions {
  /** The loading worker's heap ceiling in MiB (default 2048); past it the load fails as "too large". */
  workerHeapMb?: number;
}

export interface LoaderRequest {
  id: number;
  dir: string;
  options: LoadOptions;
}
export type LoaderReply = { id: number } & (
  | { ok: true; loaded: Transfer }
  | { ok: false; problems: Problem[]; warnings: Problem[]; unreadable: boolean });

/**
 * loadCatalogue(dir, options) on a worker thread: resolves with the same LoadResult, rejects with
 * CatalogueError (CatalogueReadError when the folder cannot be read) listing every problem. The
 * request loop's only work is parsing the result, in slices of a few milliseconds (see
 * test/catalogue/load-off-loop.test.ts).
 */
export async function loadCatalogueOffLoop(dir: string, { workerHeapMb = WORKER_HEAP_MB, ...options }: OffLoopOptions = {}): Promise<LoadResult> {
  return assembleTransfer(await loaderFor(workerHeapMb).load(dir, options));
}

interface Waiting { dir: string; resolve: (t: Transfer) => void; reject: (e: unknown) => void }

/** One worker thread answering load requests in turn, by id. */
class LoaderThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private idle: NodeJS.Timeout | undefined;
  ended = false;

  constructor(readonly heapMb: number) {
    // worker_threads loads with the first reload, not on every start-up (~3 ms).
    const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
    this.worker = new Worker(WORKER, { resourceLimits: { maxOldGenerationSizeMb: heapMb } });
    this.worker.on('message', (m: LoaderReply) => {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      if (m.ok) w.resolve(m.loaded);
      else w.reject(m.unreadable ? new CatalogueReadError(m.problems) : new CatalogueError(m.problems, m.warnings));
      this.idleCheck();
    });
    this.worker.once('error', (e: NodeJS.ErrnoException) => this.fail((w) => e.code === 'ERR_WORKER_OUT_OF_MEMORY'
      ? new CatalogueError([{ file: relative(process.cwd(), w.dir) || '.', line: 0, message: `the catalogue is too large to load (over ${heapMb} MiB of heap); nothing was applied` }])
      : e));
    this.worker.once('exit', (code) => this.fail(() => new Error(`catalogue load worker exited with ${code} before answering`)));
    this.worker.unref(); // keeps the process alive only while a load is waiting (after the listeners: adding one refs it again)
  }

  load(dir: string, options: LoadOptions): Promise<Transfer> {
    clearTimeout(this.idle);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { dir, resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ id, dir, options } satisfies LoaderRequest);
    });
  }

  /** The thread is gone (out of memory, crashed, ended): every load it had fails; the next load starts another. */
  private fail(why: (w: Waiting) => unknown): void {
    this.ended = true;
    clearTimeout(this.idle);
    for (const w of this.waiting.values()) w.reject(why(w));
    this.waiting.clear();
  }

  private idleCheck(): void {
    if (this.waiting.size) return;
    this.worker.unref();
    this.idle = setTimeout(() => { this.ended = true; void this.worker.terminate(); }, LOADER_IDLE_MS);
    this.idle.unref();
  }
}

let thread: LoaderThread | undefined;

function loaderFor(heapMb: number): LoaderThread {
  // Another heap ceiling (tests ask for a tiny one) gets a thread of its own; the old one ends when idle.
  if (!thread || thread.ended || thread.heapMb !== heapMb) thread = new LoaderThread(heapMb);
  return thread;
}
