// The drift tables of several processes (--workers) as one report: entries of the same operation
// (and, for contradictions, the same answer at the same release) added up, the first and last
// seen of all of them, and the same bound as one process's table: the most counted entries kept,
// the rest counted as overflow.
import type { DriftReport } from './drift.js';

type Unknown = DriftReport['unknownOperations']['entries'][number];
type Contradiction = DriftReport['contradictions']['entries'][number];

const byCount = (a: { count: number; firstSeen: string }, b: { count: number; firstSeen: string }) => b.count - a.count || a.firstSeen.localeCompare(b.firstSeen);

/** `reports` (at least one) as one; `workers` says how many processes were asked and how many answered. */
export function mergeReports(reports: readonly DriftReport[], workers: { answered: number; of: number }): DriftReport {
  const max = Math.max(...reports.map((r) => r.bounds.entries));
  const unknown = table(reports.map((r) => r.unknownOperations), (e: Unknown) => `${e.service ?? ''} ${e.operation}`, max, (into) => into);
  const contradictions = table(reports.map((r) => r.contradictions), (e: Contradiction) => `${e.service} ${e.release ?? ''} ${e.operation} ${e.says} ${e.status} ${e.code ?? ''}`, max,
    (into, e) => ({ ...into, parameters: [...new Set([...into.parameters, ...e.parameters])].sort() }));
  return { since: reports.map((r) => r.since).sort()[0], bounds: reports[0].bounds, workers, unknownOperations: unknown, contradictions };
}

interface Table<E> { total: number; overflow: number; entries: E[] }

function table<E extends { count: number; firstSeen: string; lastSeen: string }>(tables: Table<E>[], key: (e: E) => string, max: number, join: (into: E, e: E) => E): Table<E> {
  const merged = new Map<string, E>();
  for (const t of tables) {
    for (const e of t.entries) {
      const had = merged.get(key(e));
      merged.set(key(e), had ? {
        ...join(had, e), count: had.count + e.count,
        firstSeen: had.firstSeen < e.firstSeen ? had.firstSeen : e.firstSeen, lastSeen: had.lastSeen > e.lastSeen ? had.lastSeen : e.lastSeen,
      } : e);
    }
  }
  const all = [...merged.values()].sort(byCount);
  const dropped = all.slice(max).reduce((n, e) => n + e.count, 0);
  return {
    total: tables.reduce((n, t) => n + t.total, 0),
    overflow: tables.reduce((n, t) => n + t.overflow, 0) + dropped,
    entries: all.slice(0, max),
  };
}
