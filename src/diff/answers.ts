// What changed in an operation's answers between two releases. The catalogue holds no answer
// schemas; changes.yaml declares these changes where it carries them back (a status mapped, a field
// copied or restored) or says nothing can (lost), so the diff reads them there and says which.
import type { AnswerStep, Change as VersionChange } from '../catalogue/changes/types.js';
import type { Service } from '../catalogue/model.js';
import type { Delta } from './types.js';

/** The answer changes of the upgrade from position `from` to position `to`. */
export function answerDeltas(service: Service, from: number, to: number): Delta[] {
  const out: Delta[] = [];
  const seen = new Set<string>(); // a field copied and then restored (null when absent) is one change
  for (const c of service.changes.changes) {
    if (c.index <= from || c.index > to) continue;
    for (const s of c.answer) {
      for (const d of deltasOf(c, s)) {
        const key = `${c.release} ${c.operation} ${d.type} ${d.parameter ?? d.after}`;
        if (!seen.has(key)) out.push(d);
        seen.add(key);
      }
    }
  }
  return out;
}

function deltasOf(c: VersionChange, s: AnswerStep): Delta[] {
  const subject = { type: 'endpoint' as const, id: c.operation };
  const base = { kind: 'answer' as const, subject, release: c.release, at: s.at, source: `changes.yaml ${c.id}: ${c.source}` };
  const field = (name: string) => ('in' in s && s.in ? `${s.in}.${name}` : name);
  switch (s.kind) {
    // The step maps the newer status back to the older one: the older answered `old`, the newer answers `now`.
    case 'status': return Object.entries(s.codes).map(([now, old]) => ({ ...base, type: 'status-changed', before: String(old), after: now }));
    case 'lost': return s.names.map((n) => ({ ...base, type: 'answer-field-removed', parameter: field(n) }));
    case 'copy': return Object.keys(s.fields).map((n) => ({ ...base, type: 'answer-field-removed', parameter: field(n) }));
    case 'restore': return Object.keys(s.values).map((n) => ({ ...base, type: 'answer-field-removed', parameter: field(n) }));
    default: return [];
  }
}
