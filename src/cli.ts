#!/usr/bin/env node
// The gateway's one entry point: `npm start -- [flags]` (see USAGE in config.ts).
import cluster from 'node:cluster';
import { UsageError } from './args.js';
import { CatalogueError } from './catalogue/problems.js';
import { readConfig, USAGE } from './config.js';
import { runPrimary, startHeartbeat, type WorkerFailed, type WorkerReady } from './cluster.js';
import { startGateway } from './server.js';
import { printLine } from './stdout-line.js';
import { upstreamTargets, warnUnreachableUpstreams } from './upstream/reachability.js';

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    console.log(USAGE);
    return;
  }
  let config;
  try {
    config = readConfig(process.argv.slice(2));
  } catch (e) {
    return fail(e);
  }
  try {
    if (config.workers > 1 && cluster.isPrimary) return runPrimary(config);
    const argv = process.argv.slice(2);
    const running = await startGateway(config, {
      reread: () => readConfig(argv),
      // A worker reloaded by a request tells the primary, which reloads the other workers.
      onReload: (r) => { if (cluster.isWorker && r.ok && r.trigger.startsWith('POST /_gateway/reload')) process.send?.({ reloadOthers: true }); },
    });
    process.on('SIGHUP', () => { void running.reload('SIGHUP'); });
    if (cluster.isWorker) {
      process.send!({ ready: running.url } satisfies WorkerReady);
      startHeartbeat();
    } else {
      printLine(`listening on ${running.url}`);
      // One warning per configured upstream a TCP connection cannot reach (never blocks serving); under
      // --workers the primary says it once instead.
      void warnUnreachableUpstreams(upstreamTargets(running.catalogue, config.upstreams), (m) => running.logger.warn(m));
    }
    // Drain: stop accepting, finish in-flight requests (at most the grace), then exit. A second
    // signal exits at once.
    const stop = () => {
      process.once('SIGINT', () => process.exit(1));
      process.once('SIGTERM', () => process.exit(1));
      running.close().then(() => process.exit(0), () => process.exit(1));
      setTimeout(() => process.exit(0), config.acceptGraceMs + config.shutdownGraceMs + 2000).unref();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } catch (e) {
    fail(e);
  }
}

function fail(e: unknown): void {
  if (cluster.isWorker) {
    // Every worker fails alike (the port is in use, …): the primary prints the first one's line, once.
    const usage = e instanceof UsageError;
    const failed: WorkerFailed = { failed: usage ? `error: ${e.message} (see --help)` : `error: ${(e as Error).message}`, status: usage ? 2 : 1 };
    process.send!(failed, () => process.exit(failed.status));
    return;
  }
  if (e instanceof UsageError) {
    console.error(`error: ${e.message} (see --help)`); // one line: the message lists the valid choices
    process.exitCode = 2;
  } else if (e instanceof CatalogueError) {
    console.error(e.message);
    process.exitCode = 1;
  } else {
    console.error(`error: ${(e as Error).message}`);
    process.exitCode = 1;
  }
}

void main();
