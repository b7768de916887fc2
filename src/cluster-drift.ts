// Under --workers, GET /_gateway/drift must show the whole gateway, not whichever worker the kernel
// handed the connection to (as for the metrics, ./cluster-metrics.ts). Each worker keeps its own
// drift tables; the worker that receives the request asks the primary over the cluster IPC channel,
// the primary asks every worker for its tables, merges them (src/gateway/drift/drift-merge.ts) and sends
// the merge back. A worker that does not answer in time is left out, and the answer says so.
import cluster, { type Worker } from 'node:cluster';
import type { Drift, DriftReport } from './gateway/drift/drift.js';
import { mergeReports } from './gateway/drift/drift-merge.js';

const ASK = 'gateway:drift?';
const ANSWER = 'gateway:drift';
const SHARE = 'gateway:drift-share?';
const SHARED = 'gateway:drift-share';
/** How long the primary waits for the workers' tables (then merges those it has). */
const SHARE_WAIT_MS = 2000;
/** How long a worker waits for the primary's merge. */
const ANSWER_WAIT_MS = SHARE_WAIT_MS + 1000;

type Message =
  | { type: typeof ASK; id: number }
  | { type: typeof ANSWER; id: number; report?: DriftReport; error?: string }
  | { type: typeof SHARE; round: number }
  | { type: typeof SHARED; round: number; report: DriftReport };

/** In the primary: answer a worker's request with the merge of every worker's tables. */
export function serveAggregateDrift(): void {
  let nextRound = 0;
  const rounds = new Map<number, { reports: DriftReport[]; of: number; finish: () => void }>();
  cluster.on('message', (worker: Worker, m: Message) => {
    if (m?.type === SHARED) {
      const r = rounds.get(m.round);
      if (!r) return; // a late answer: that round was merged without it
      r.reports.push(m.report);
      if (r.reports.length >= r.of) r.finish();
      return;
    }
    if (m?.type !== ASK) return;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w?.isConnected());
    const round = nextRound++;
    const reports: DriftReport[] = [];
    const finish = () => {
      clearTimeout(timer);
      rounds.delete(round);
      const answer: Message = reports.length
        ? { type: ANSWER, id: m.id, report: mergeReports(reports, { answered: reports.length, of: workers.length }) }
        : { type: ANSWER, id: m.id, error: `no worker sent its drift tables within ${SHARE_WAIT_MS} ms` };
      if (worker.isConnected()) worker.send(answer);
    };
    const timer = setTimeout(finish, SHARE_WAIT_MS);
    rounds.set(round, { reports, of: workers.length, finish });
    for (const w of workers) w.send({ type: SHARE, round } satisfies Message);
  });
}

/** In a worker: share its tables with the primary, and answer GET /_gateway/drift from the primary's merge. */
export function aggregateDriftAcrossWorkers(drift: Drift): void {
  let next = 0;
  const waiting = new Map<number, { resolve(r: DriftReport): void; reject(e: Error): void; timer: NodeJS.Timeout }>();
  process.on('message', (m: Message) => {
    if (m?.type === SHARE) {
      process.send!({ type: SHARED, round: m.round, report: drift.snapshot() } satisfies Message);
      return;
    }
    if (m?.type !== ANSWER) return;
    const w = waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id);
    clearTimeout(w.timer);
    if (m.report) w.resolve(m.report);
    else w.reject(new Error(m.error ?? "no drift tables in the primary's answer"));
  });
  drift.reportFrom(() => new Promise<DriftReport>((resolve, reject) => {
    const id = next++;
    const timer = setTimeout(() => {
      waiting.delete(id);
      reject(new Error(`the primary sent no merged drift tables within ${ANSWER_WAIT_MS} ms`));
    }, ANSWER_WAIT_MS);
    waiting.set(id, { resolve, reject, timer });
    process.send!({ type: ASK, id } satisfies Message);
  }));
}
