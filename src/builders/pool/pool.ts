// Builds run off the request loop, in a pool of worker threads (piscina), each bounded:
// - a bounded queue: beyond it a build is refused at once (BuilderBusyError → 503 + Retry-After)
//   instead of piling up memory and latency;
// - a wall-clock deadline per build: past it the worker is terminated (piscina terminates the
//   thread of an aborted running task, which stops even a WASM loop) and replaced, and the
//   caller gets BuilderDeadlineError — never a hang;
// - the Plutus execution budget, enforced inside the worker by the builders themselves.
// The main loop keeps parsing, validating and answering while builds run.
import { DEFAULT_DEADLINE_MS, DEFAULT_QUEUE_PER_THREAD, defaultThreads } from './defaults.js';
import { Piscina } from 'piscina';
import { BuilderBusyError, BuilderDeadlineError, BuilderError, fromWire } from '../errors.js';
import { MAX_TX_EX_UNITS } from '../cardano/execution-budget.js';
import type { Budget } from '../cardano/tx-plan.js';
import type { BuilderPlugin, PluginRegistry } from '../plugin.js';
import { builtinPlugins } from '../registry.js';
import { BUILDER_PRIORITIES, type BuilderPriority } from './background-priority.js';
import { Deadline } from './deadline.js';
import type { BuildTask, WorkerSettings } from './protocol.js';
import type { WorkerAnswer } from './worker.js';

export interface BuilderPoolOptions {
  /** Worker threads. Default: cores − 1, at least 1 (one core stays with the request loop). */
  threads?: number;
  /** Builds waiting for a thread, beyond which a build is refused busy. Default: 8 × threads. */
  maxQueue?: number;
  /** Wall clock per build, queue wait included, in ms. Default: 10 000. */
  deadlineMs?: number;
  /** Plutus budget per transaction. Default (and ceiling): the protocol's max tx ex-units. */
  executionBudget?: Budget;
  /** Retry-After (seconds) sent with a busy refusal. Default: estimated from the queue and recent build times, at least 1. */
  retryAfterSeconds?: number;
  /** Builder threads' scheduling priority (./background-priority.ts). Default: background (nice 19); the gateway passes --builder-priority. */
  priority?: BuilderPriority;
  /** Module (URL) exporting the PluginRegistry the workers run. Default: the built-in builders. */
  pluginsModule?: string | URL;
}

export interface BuilderPoolStats {
  threads: number;
  /** Builds waiting for a thread. */
  queued: number;
  maxQueue: number;
  deadlineMs: number;
  /** Builds that answered (a transaction or a refusal). */
  completed: number;
  /** Refused at once: queue full. */
  busy: number;
  /** Past the deadline (their workers were replaced when they were running). */
  deadlines: number;
  /** Refused for the Plutus execution budget. */
  budgetExceeded: number;
  /** Mean run time of recent builds, ms. */
  meanRunMs: number;
}

export interface BuilderPool {
  /** Build with the named plugin; resolves to its JSON answer ({ txHex }), rejects with a BuilderError (or a bug). */
  run(builder: string, body: unknown): Promise<unknown>;
  /** Wait for running builds, then stop every thread. */
  close(): Promise<void>;
  stats(): BuilderPoolStats;
}

/** The worker entry, next to this file in the compiled layout (dist/src/builders/pool/worker-entry.cjs, which loads worker.js). */
const WORKER = new URL('./worker-entry.cjs', import.meta.url).href;
const BUILTIN_PLUGINS = new URL('../registry.js', import.meta.url).href;

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new Error(`builder pool: ${name} must be a positive integer, got ${value}`);
  return value;
}

/** The pool's bounds and the workers' settings, each checked: a wrong one fails at start-up, not at the first build. */
function checkedOptions(opts: BuilderPoolOptions): { threads: number; maxQueue: number; deadlineMs: number; settings: WorkerSettings } {
  const threads = positiveInteger('threads', opts.threads ?? defaultThreads());
  const maxQueue = positiveInteger('maxQueue', opts.maxQueue ?? DEFAULT_QUEUE_PER_THREAD * threads);
  const deadlineMs = positiveInteger('deadlineMs', opts.deadlineMs ?? DEFAULT_DEADLINE_MS);
  const budget = opts.executionBudget ?? MAX_TX_EX_UNITS;
  for (const part of ['mem', 'steps'] as const) {
    if (budget[part] <= 0n || budget[part] > MAX_TX_EX_UNITS[part]) {
      throw new Error(`builder pool: executionBudget.${part} ${budget[part]} is out of range; expected 1…${MAX_TX_EX_UNITS[part]} (the protocol's max tx execution units, which the evaluator cannot exceed)`);
    }
  }
  const priority = opts.priority ?? 'background';
  if (!BUILDER_PRIORITIES.includes(priority)) throw new Error(`builder pool: priority must be one of ${BUILDER_PRIORITIES.join(', ')}, got "${priority}"`);
  const settings: WorkerSettings = {
    pluginsModule: String(opts.pluginsModule ?? BUILTIN_PLUGINS),
    priority,
    executionBudget: { mem: budget.mem, steps: budget.steps },
  };
  return { threads, maxQueue, deadlineMs, settings };
}

export function createBuilderPool(opts: BuilderPoolOptions = {}): BuilderPool {
  const { threads, maxQueue, deadlineMs, settings } = checkedOptions(opts);
  const piscina = new Piscina<BuildTask, WorkerAnswer>({
    filename: WORKER,
    minThreads: threads,
    maxThreads: threads,
    maxQueue,
    // The pool is long-lived; threads that idle keep their loaded WASM for the next build.
    idleTimeout: Number.MAX_SAFE_INTEGER,
    workerData: settings,
  });
  const counts = { busy: 0, deadlines: 0, budgetExceeded: 0 };
  let closed = false;

  const meanRunMs = () => {
    const mean = piscina.histogram.runTime.mean;
    return Number.isFinite(mean) ? mean : 0;
  };
  const retryAfter = () =>
    opts.retryAfterSeconds ?? Math.max(1, Math.ceil(((piscina.queueSize / threads + 1) * meanRunMs()) / 1000));
  const busy = () => {
    counts.busy++;
    return new BuilderBusyError(`transaction builders are busy: ${threads} thread(s) building and ${piscina.queueSize} request(s) queued (limit ${maxQueue}); retry later`, retryAfter());
  };

  async function run(builder: string, body: unknown): Promise<unknown> {
    if (closed) throw new Error('builder pool is closed');
    if (piscina.queueSize >= maxQueue) throw busy();
    const started = performance.now();
    // Not AbortSignal.timeout(): its timer outlives the build until it fires, so a busy pool kept
    // thousands alive, promoted to the request loop's old generation (see ./deadline.ts).
    const deadline = new Deadline(deadlineMs);
    let answer: WorkerAnswer;
    try {
      answer = await piscina.run({ builder, body }, { signal: deadline });
    } catch (e) {
      const err = e as Error;
      if (err?.name === 'AbortError') {
        counts.deadlines++;
        const waited = Math.round(performance.now() - started);
        throw new BuilderDeadlineError(`transaction: ${builder} did not finish within the ${deadlineMs} ms build deadline (gave up after ${waited} ms); the build was stopped`);
      }
      if (/queue is at limit/i.test(err?.message ?? '')) throw busy();
      throw e;
    } finally {
      deadline.clear();
    }
    if (answer.ok) return answer.value;
    const error: BuilderError = fromWire(answer.error);
    if (error.code === 'budget') counts.budgetExceeded++;
    throw error;
  }

  return {
    run,
    async close() {
      closed = true;
      await piscina.close();
    },
    stats: () => ({
      threads,
      queued: piscina.queueSize,
      maxQueue,
      deadlineMs,
      completed: piscina.completed,
      ...counts,
      meanRunMs: Math.round(meanRunMs() * 100) / 100,
    }),
  };
}

/**
 * The pool as a PluginRegistry (one plugin per name, each a `pool.run`), for code that takes
 * plugins: the gateway keeps its start-up check that every catalogue builder exists. Names
 * default to the built-in builders'; loading the registry here loads no WASM.
 */
export function poolPlugins(pool: BuilderPool, names: Iterable<string> = builtinPlugins.keys()): PluginRegistry {
  return new Map<string, BuilderPlugin>([...names].map((name) => [name, (body: unknown) => pool.run(name, body)]));
}
