// One process per core: the primary checks what can fail once (usage, catalogue, pinning,
// signing set-up), forks the workers, prints the listening line when every worker serves,
// replaces a worker that dies or whose event loop stops answering (no heartbeat for
// --worker-stall ms: a request that spins forever would otherwise hold its share of the port
// hostage), and stops them all on SIGINT/SIGTERM. The gateway holds no state
// between requests, so workers need nothing from each other — except that a metrics scrape and
// GET /_gateway/drift answered by one worker show them all (cluster-metrics.ts, cluster-drift.ts),
// and the listen-key bridge keeps its keys and subscription here, one for all (cluster-user-data.ts).
// Workers accept from the one shared listening socket (SCHED_NONE), not through the primary's
// round robin: a round-robin primary accepts a connection and hands it to a worker over IPC, and a
// connection handed to a worker that froze or died is neither served nor closed (the primary keeps
// its copy open for an acknowledgement that never comes). With the shared socket the kernel queues
// connections until a live worker accepts them, and a dead worker's accepted connections close with
// it. --port 0 is resolved to a port once, before the first fork, and every worker (replacements
// too) is started with that port, so the announced URL stays the gateway's after any replacement.
import cluster, { type Worker } from 'node:cluster';
import { createServer } from 'node:net';
import { loadCatalogueAtStart } from './catalogue/load-at-start.js';
import { pinReleases } from './catalogue/pin.js';
import type { GatewayConfig } from './config.js';
import { serveAggregateDrift } from './cluster-drift.js';
import { serveAggregateMetrics } from './cluster-metrics.js';
import { serveUserDataAcrossWorkers } from './cluster-user-data.js';
import { signedSubscribeParams } from './gateway/user-data/bridge.js';
import { createLogger, type Logger } from './log.js';
import { restUpstreams } from './server.js';
import { printLine } from './stdout-line.js';
import { securityHooks } from './gateway/signing/setup.js';
import { readTls } from './server/tls.js';
import { upstreamTargets, warnUnreachableUpstreams } from './upstream/reachability.js';

export interface WorkerReady {
  ready: string;
}

/** A worker that could not start: the one-line error (printed once, by the primary) and the exit status. */
export interface WorkerFailed {
  failed: string;
  status: number;
}

interface Heartbeat {
  beat: number;
}

const BEAT_MS = 250;

/** In a worker: tell the primary, from the event loop itself, that the loop still turns. */
export function startHeartbeat(): void {
  setInterval(() => process.send?.({ beat: Date.now() } satisfies Heartbeat), BEAT_MS).unref();
}

/** The port `--port 0` stands for: one the kernel picks now on `host`, then closed for the workers to bind. */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** `--port 0` and `--health-port 0` as the flags of ports picked now, once, for every worker. */
async function fixedPorts(config: GatewayConfig): Promise<string[]> {
  const out: string[] = [];
  for (const [flag, port] of [['--port', config.port], ['--health-port', config.healthPort]] as const) {
    const picked = port === 0 ? await freePort(config.host).catch(() => undefined) : undefined;
    if (picked !== undefined) out.push(flag, String(picked));
  }
  return out;
}

export async function runPrimary(config: GatewayConfig, logger: Logger = createLogger(config.logLevel, undefined, config.logFormat)): Promise<void> {
  const { catalogue } = await loadCatalogueAtStart(config.catalogue, { cacheDir: config.cacheDir });
  const views = pinReleases(catalogue, config.release).default.views;
  restUpstreams(catalogue, config.upstreams);
  const signing = securityHooks(config, views, createLogger('silent')).websocket.signing;
  readTls(config); // an unreadable or mismatched certificate is said once, here, not by every worker

  serveAggregateMetrics();
  serveAggregateDrift();
  serveUserDataAcrossWorkers(signing && { signedParams: signedSubscribeParams(signing), apiKey: signing.apiKey, logger });
  let ready = 0;
  let stopping = false;
  let serving = false;
  const lastBeat = new Map<Worker, number>();
  const fork = (): Worker => {
    const w = cluster.fork();
    w.on('message', (m: WorkerReady & Heartbeat & Partial<WorkerFailed> & { reloadOthers?: boolean }) => {
      if (m?.beat) lastBeat.set(w, Date.now());
      if (m?.failed && !serving && !stopping) {
        console.error(m.failed);
        process.exitCode = m.status ?? 1;
        stopping = true; // the exit handler below stops the others once this one has gone
        for (const other of Object.values(cluster.workers ?? {})) if (other && other !== w) other.kill('SIGTERM');
      }
      if (m?.reloadOthers) for (const other of Object.values(cluster.workers ?? {})) if (other && other !== w) other.process.kill('SIGHUP');
      if (!m?.ready || serving) return;
      lastBeat.set(w, Date.now());
      if (++ready === config.workers) {
        serving = true;
        printLine(`listening on ${m.ready} (${config.workers} workers)`);
        void warnUnreachableUpstreams(upstreamTargets(catalogue, config.upstreams), (message) => logger.warn(message)); // once, here, not per worker
      }
    });
    return w;
  };
  // A worker whose loop is blocked sends no beats; SIGKILL it (it cannot run a SIGTERM handler) and
  // the exit handler below starts a replacement.
  setInterval(() => {
    if (stopping) return;
    const now = Date.now();
    for (const [w, at] of lastBeat) {
      if (now - at > config.workerStallMs && !w.isDead()) {
        logger.warn(`worker ${w.process.pid}: event loop blocked for more than ${config.workerStallMs} ms; replacing it`);
        lastBeat.delete(w);
        w.process.kill('SIGKILL');
      }
    }
  }, Math.min(1000, config.workerStallMs / 2)).unref();
  cluster.on('exit', (w, code, signal) => {
    lastBeat.delete(w);
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(); // with the exit status set, if any
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
    setTimeout(() => process.exit(0), config.acceptGraceMs + config.shutdownGraceMs + 3000).unref();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // Every worker reloads (each loads, checks and swaps on its own; a refused reload keeps its program).
  process.on('SIGHUP', () => { for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGHUP'); });
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  // The last --port wins (args.ts), over GATEWAY_PORT and the config file too. A host that cannot
  // be listened on fails the probe: the workers then report that listen error, once, as usual.
  const fixed = await fixedPorts(config);
  if (fixed.length) cluster.setupPrimary({ args: [...process.argv.slice(2), ...fixed] });
  for (let i = 0; i < config.workers; i++) fork();
}
