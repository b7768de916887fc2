// The entry of a builder worker thread: runs one build and answers plain data, so a refusal
// crosses back to the main thread with its class intact (see ../errors.ts). CSL and the
// evaluator load lazily, per worker, on the first build that needs them (the registry's plugins
// are dynamic imports). A bug (TypeError…) is rethrown: piscina rejects the caller with it.
import { workerData } from 'node:worker_threads';
import { BuilderError, type WireError, toWire } from '../errors.js';
import { setExecutionBudget } from '../cardano/execution-budget.js';
import type { PluginRegistry } from '../plugin.js';
import { setThreadPriority } from './background-priority.js';
import type { BuildTask, WorkerSettings } from './protocol.js';

export type WorkerAnswer = { ok: true; value: unknown } | { ok: false; error: WireError };

const settings = workerData as WorkerSettings;
if (settings.executionBudget) setExecutionBudget(settings.executionBudget);

// Before its first build, the thread drops to the priority it was given (by default nice 19,
// ./background-priority.ts): when cores are short, the kernel serves the request loop first.
// Awaited in build(), not at the top level: a module with top-level await evaluates
// asynchronously, and a worker terminated during that (a build's deadline, a shutdown, while the
// machine is busy) aborts the whole process in V8 on Node 20 ("Check failed: (location_) !=
// nullptr" in SourceTextModule::ExecuteAsyncModule, nodejs/node#43182): seen in a test run.
const prioritySet = setThreadPriority(settings.priority);

const registry: Promise<PluginRegistry> = import(settings.pluginsModule).then((m: { default?: PluginRegistry; builtinPlugins?: PluginRegistry }) => {
  const plugins = m.default ?? m.builtinPlugins;
  if (!plugins) throw new Error(`${settings.pluginsModule} exports no plugin registry (default or builtinPlugins)`);
  return plugins;
});

export default async function build(task: BuildTask): Promise<WorkerAnswer> {
  await prioritySet;
  const plugin = (await registry).get(task.builder);
  if (!plugin) throw new Error(`no builder plugin "${task.builder}" in this worker`);
  try {
    return { ok: true, value: await plugin(task.body) };
  } catch (e) {
    if (e instanceof BuilderError) return { ok: false, error: toWire(e) };
    throw e;
  }
}
