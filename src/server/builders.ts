// The builder pool behind the transaction service's routes, started on the first build.
import { builtinPlugins } from '../builders/registry.js';
import type { PluginRegistry } from '../builders/plugin.js';
import type { BuilderPool } from '../builders/pool/pool.js';
import type { GatewayConfig } from '../config.js';
import type { Metrics } from '../gateway/observe/metrics.js';

/**
 * The builder pool, started on the first build: threads and WASM cost start-up time and memory a
 * gateway that only proxies never needs. The registry's names are known without loading anything.
 */
export function lazyBuilderPool(config: GatewayConfig): { plugins: PluginRegistry; observe(metrics: Metrics): void; close(): Promise<void> } {
  let pool: Promise<BuilderPool> | undefined;
  let metrics: Metrics | undefined;
  const get = () => (pool ??= import('../builders/pool/pool.js').then((m) => m.createBuilderPool({
    threads: config.builderThreads, maxQueue: config.builderQueue, deadlineMs: config.builderDeadlineMs,
    priority: config.builderPriority,
  })));
  const run = async (name: string, body: unknown) => {
    const t0 = performance.now();
    let outcome: 'ok' | 'error' = 'error';
    try {
      const out = await (await get()).run(name, body);
      outcome = 'ok';
      return out;
    } finally {
      metrics?.observeBuilder(name, outcome, (performance.now() - t0) / 1000);
    }
  };
  const plugins = new Map([...builtinPlugins.keys()].map((name) => [name, (body: unknown) => run(name, body)]));
  return { plugins, observe: (m) => { metrics = m; }, close: async () => { if (pool) await (await pool).close(); } };
}

