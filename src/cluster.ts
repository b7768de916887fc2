// One process per core: the primary checks what can fail once (usage, catalogue, pinning,
// signing set-up), forks the workers, prints the listening line when every worker serves,
// replaces a worker that dies, and stops them all on SIGINT/SIGTERM. The gateway holds no state
// between requests, so workers need nothing from each other.
import cluster, { type Worker } from 'node:cluster';
import { loadCatalogue } from './catalogue/load.js';
import { pinViews } from './catalogue/pin.js';
import type { GatewayConfig } from './config.js';
import { createLogger, type Logger } from './log.js';
import { restUpstreams } from './server.js';
import { securityHooks } from './gateway/signing/setup.js';

export interface WorkerReady {
  ready: string;
}

export function runPrimary(config: GatewayConfig, logger: Logger = createLogger(config.logLevel)): void {
  const { catalogue } = loadCatalogue(config.catalogue);
  const views = pinViews(catalogue, config.release);
  restUpstreams(catalogue, config.upstreams);
  securityHooks(config, views, createLogger('silent'));

  let ready = 0;
  let stopping = false;
  let serving = false;
  const fork = (): Worker => {
    const w = cluster.fork();
    w.on('message', (m: WorkerReady) => {
      if (!m?.ready || serving) return;
      if (++ready === config.workers) {
        serving = true;
        console.log(`listening on ${m.ready} (${config.workers} workers)`);
      }
    });
    return w;
  };
  cluster.on('exit', (w, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    if (!serving) {
      // A worker that cannot start will not start on a retry either: stop with its status.
      stopping = true;
      for (const other of Object.values(cluster.workers ?? {})) other?.kill('SIGTERM');
      process.exitCode = code || 1;
      return;
    }
    logger.warn(`worker ${w.process.pid} exited (${signal ?? code}); starting a replacement`);
    fork();
  });
  const stop = () => {
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.kill('SIGTERM');
    setTimeout(() => process.exit(0), 6000).unref();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  for (let i = 0; i < config.workers; i++) fork();
}
