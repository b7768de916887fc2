// Read changes.yaml (already checked against the JSON Schema) into the vocabulary's types, each
// step with its file and line. Release ids are resolved here; what a change touches is checked
// against the whole service once it is built (check.ts).
import type { Problem } from '../problems.js';
import type { ParsedYaml } from '../yaml-file.js';
import type { AnswerStep, Change, ChangeSet, RequestStep, Unbridgeable } from './types.js';

type Raw = Record<string, any>;

export function readChanges(f: ParsedYaml | undefined, releaseIndex: ReadonlyMap<string, number>, problems: Problem[]): ChangeSet {
  if (!f) return { changes: [], unbridgeable: [] };
  const data = f.data as { changes?: Raw[]; unbridgeable?: Raw[] };
  const where = (path: (string | number)[]) => ({ file: f.file, line: f.lineOf(path) });
  const release = (path: (string | number)[], id: string): number => {
    const i = releaseIndex.get(String(id));
    if (i === undefined) problems.push({ ...where([...path, 'release']), message: `release "${id}" is not in releases.yaml` });
    else if (i === 0) problems.push({ ...where([...path, 'release']), message: `release "${id}" is the first release: nothing is older to migrate from` });
    return i ?? -1;
  };
  const changes: Change[] = [];
  (data.changes ?? []).forEach((c, i) => {
    if (!c) return; // left out by a schema error
    const path = ['changes', i];
    changes.push({
      id: c.id, release: String(c.release), index: release(path, c.release), operation: c.operation, summary: c.summary, source: c.source, note: c.note,
      request: (c.request ?? []).map((s: Raw, j: number) => requestStep(s, where([...path, 'request', j]))),
      answer: (c.answer ?? []).map((s: Raw, j: number) => answerStep(s, where([...path, 'answer', j]))),
      events: c.events ? { upstream: c.events.upstream, client: c.events.client, expired: c.events.expired, ended: c.events.ended, at: where([...path, 'events']) } : undefined,
      at: where(path),
    });
  });
  const unbridgeable: Unbridgeable[] = [];
  (data.unbridgeable ?? []).forEach((u, i) => {
    if (!u) return;
    const path = ['unbridgeable', i];
    unbridgeable.push({
      release: String(u.release), index: release(path, u.release), operation: u.operation, parameter: u.parameter,
      values: u.values?.map(String), replacement: u.replacement, reason: u.reason, source: u.source, at: where(path),
    });
  });
  return { changes, unbridgeable };
}

function requestStep(s: Raw, at: RequestStep['at']): RequestStep {
  if (s.move !== undefined) return { kind: 'move', to: s.move, at };
  if (s.rename !== undefined) return { kind: 'rename', names: s.rename, at };
  // Constants keep their YAML type (true, 3, 'PR_TITLE'): a JSON body field is sent them as typed, a query parameter as text.
  if (s.set !== undefined) return { kind: 'set', values: s.set, at };
  if (s.default !== undefined) return { kind: 'default', values: s.default, at };
  if (s.map !== undefined) return { kind: 'map', parameter: s.map.parameter, to: s.map.to ?? s.map.parameter, values: s.map.values, at };
  if (s.drop !== undefined) return { kind: 'drop', names: s.drop, at };
  if (s.list !== undefined) return { kind: 'list', names: s.list, at };
  if (s.integers !== undefined) return { kind: 'integers', names: s.integers, at };
  if (s.bridge !== undefined) {
    const b = s.bridge;
    return { kind: 'bridge', name: b.name, action: b.action, via: b.via, ...(b.token ? { token: { from: b.token.from, answer: b.token.answer, params: b.token.params } } : {}), ...(b.scope ? { scope: b.scope } : {}), at };
  }
  return { kind: 'transform', name: s.transform, at };
}

function answerStep(s: Raw, at: AnswerStep['at']): AnswerStep {
  const within = s.in === undefined ? {} : { in: String(s.in) };
  if (s.rename !== undefined) return { kind: 'rename', names: s.rename, ...within, at };
  if (s.restore !== undefined) return { kind: 'restore', values: s.restore, ...within, at };
  if (s.copy !== undefined) return { kind: 'copy', fields: s.copy, ...within, at };
  if (s.lost !== undefined) return { kind: 'lost', names: s.lost, ...within, at };
  if (s.status !== undefined) return { kind: 'status', codes: s.status, at };
  if (s.unwrap !== undefined) return { kind: 'unwrap', at };
  if (s.errors !== undefined) return { kind: 'errors', codes: s.errors, at };
  return { kind: 'transform', name: s.transform, at };
}
