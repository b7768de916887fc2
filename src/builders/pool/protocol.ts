// What the main thread and a builder worker exchange (all structured-clone safe).
import type { BuilderPriority } from './background-priority.js';

/** One build: the plugin name and the request body, already validated by the gateway. */
export interface BuildTask {
  builder: string;
  body: unknown;
}

/** Passed to every worker as workerData. */
export interface WorkerSettings {
  /** URL of a module whose default (or `builtinPlugins`) export is the PluginRegistry. */
  pluginsModule: string;
  executionBudget?: { mem: bigint; steps: bigint };
  /** The scheduling priority the thread sets for itself before its first build. */
  priority: BuilderPriority;
}
