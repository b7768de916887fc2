// Under --workers, one scrape must show the whole gateway, not whichever worker the kernel handed
// the connection to. Each worker keeps its own prom-client registry; the worker that receives a
// scrape asks the primary over the cluster IPC channel, the primary asks every worker for its
// numbers (prom-client's AggregatorRegistry: sums counters and histograms, keeps one copy of
// version info) and sends the aggregate back to the asking worker.
import cluster from 'node:cluster';
import type { Metrics } from './gateway/observe/metrics.js';

const ASK = 'gateway:metrics?';
const ANSWER = 'gateway:metrics';
/** prom-client gives up on a silent worker after 5 s; wait a little longer for its verdict. */
const ANSWER_WAIT_MS = 6000;

interface Ask { type: typeof ASK; id: number }
interface Answer { type: typeof ANSWER; id: number; text?: string; error?: string }

/** In the primary: answer workers' requests for the aggregate of every worker. */
export function serveAggregateMetrics(): void {
  let aggregator: Promise<{ clusterMetrics(): Promise<string> }> | undefined; // prom-client loads on the first scrape
  cluster.on('message', (worker, m: Ask) => {
    if (m?.type !== ASK) return;
    const reply = (a: Omit<Answer, 'type' | 'id'>) => { if (worker.isConnected()) worker.send({ type: ANSWER, id: m.id, ...a } satisfies Answer); };
    (aggregator ??= import('prom-client').then((pc) => new pc.default.AggregatorRegistry()))
      .then((agg) => agg.clusterMetrics())
      .then((text) => reply({ text }), (e: Error) => reply({ error: `aggregating the workers' metrics failed: ${e.message}` }));
  });
}

/**
 * In a worker: serve its registry to the primary's aggregator, and scrapes from the aggregate.
 * Awaited before the worker listens, so it can answer the primary's first request.
 */
export async function aggregateAcrossWorkers(metrics: Metrics): Promise<void> {
  const { default: promClient } = await import('prom-client');
  promClient.AggregatorRegistry.setRegistries([await metrics.registry()]);
  void new promClient.AggregatorRegistry(); // its constructor installs the worker's answering listener
  let next = 0;
  const waiting = new Map<number, { resolve(text: string): void; reject(e: Error): void; timer: NodeJS.Timeout }>();
  process.on('message', (m: Answer) => {
    if (m?.type !== ANSWER) return;
    const w = waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id);
    clearTimeout(w.timer);
    if (m.text !== undefined) w.resolve(m.text);
    else w.reject(new Error(m.error ?? 'no metrics in the primary\'s answer'));
  });
  metrics.renderFrom(() => new Promise<string>((resolve, reject) => {
    const id = next++;
    const timer = setTimeout(() => {
      waiting.delete(id);
      reject(new Error(`the primary sent no aggregate within ${ANSWER_WAIT_MS} ms`));
    }, ANSWER_WAIT_MS);
    waiting.set(id, { resolve, reject, timer });
    process.send!({ type: ASK, id } satisfies Ask);
  }));
}
