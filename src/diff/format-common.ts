// Pieces every formatter shares: the release label of a change, the summary line, kind titles.
import { SEVERITIES, type Change, type Kind, type Severity } from './types.js';

/**
 * The release a change is dated by; for a base diff, the releases whose clients see it, with
 * runs of consecutive releases written first..last.
 */
export function releaseLabel(c: Change, all?: readonly string[]): string {
  if (!c.releases || c.releases.length <= 1) return c.release;
  if (!all) return c.releases.join(', ');
  const runs: string[][] = [];
  let prev = -2;
  for (const r of c.releases) {
    const i = all.indexOf(r);
    if (i === prev + 1 && runs.length) runs[runs.length - 1].push(r);
    else runs.push([r]);
    prev = i;
  }
  return runs.map((run) => (run.length > 2 ? `${run[0]}..${run.at(-1)}` : run.join(', '))).join(', ');
}

export function countBySeverity(changes: readonly Change[]): Record<Severity, number> {
  const n: Record<Severity, number> = { breaking: 0, warning: 0, info: 0 };
  for (const c of changes) n[c.severity]++;
  return n;
}

/** "12 changes: 3 breaking, 2 warning, 7 info" or "no changes"; `strong` wraps the count (markdown). */
export function summary(changes: readonly Change[], strong = (s: string) => s): string {
  if (!changes.length) return strong('no changes');
  const n = countBySeverity(changes);
  return `${strong(`${changes.length} change${changes.length === 1 ? '' : 's'}`)}: ${SEVERITIES.map((s) => `${n[s]} ${s}`).join(', ')}`;
}

export const KIND_TITLE: Record<Kind, string> = {
  endpoint: 'Endpoints',
  security: 'Security',
  parameter: 'Parameters',
  schema: 'Parameter and body schemas',
  body: 'Request bodies',
  constraint: 'Parameter constraints',
  weight: 'Weights',
  answer: 'Answers (status, fields)',
  'enum-value': 'Enum values',
  'ws-method': 'Websocket-API methods',
  stream: 'Streams',
};
