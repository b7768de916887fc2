// The one deterministic order of the diff's outputs: endpoints by path then method, then enums,
// websocket methods and streams by name; strings compared by code unit (no locale).
import type { EnumUser, Subject } from './types.js';

export type SubjectRef = Pick<Subject, 'type' | 'id'>;

const SUBJECT_ORDER: Record<Subject['type'], number> = { endpoint: 0, enum: 1, 'ws-method': 2, stream: 3 };

export function compareSubjects(a: SubjectRef, b: SubjectRef): number {
  return compareSubjectOrder(subjectOrder(a), subjectOrder(b));
}

/** A subject's sort key, for sorting many items without splitting endpoint keys per comparison. */
export interface SubjectOrder {
  rank: number;
  /** The endpoint's path, or the name. */
  first: string;
  /** The endpoint's method; '' otherwise. */
  second: string;
}

export function subjectOrder(s: SubjectRef): SubjectOrder {
  if (s.type !== 'endpoint') return { rank: SUBJECT_ORDER[s.type], first: s.id, second: '' };
  const space = s.id.indexOf(' '); // "METHOD /path"
  return { rank: SUBJECT_ORDER.endpoint, first: s.id.slice(space + 1), second: s.id.slice(0, space) };
}

export function compareSubjectOrder(a: SubjectOrder, b: SubjectOrder): number {
  return a.rank - b.rank || cmp(a.first, b.first) || cmp(a.second, b.second);
}

export function compareUsers(a: EnumUser, b: EnumUser): number {
  return compareSubjects(userSubject(a), userSubject(b)) || cmp(a.name, b.name);
}

function userSubject(u: EnumUser): SubjectRef {
  if (u.endpoint !== undefined) return { type: 'endpoint', id: u.endpoint };
  if (u.wsMethod !== undefined) return { type: 'ws-method', id: u.wsMethod };
  return { type: 'stream', id: u.stream! };
}

/** Code-unit order: stable across machines and locales. */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
