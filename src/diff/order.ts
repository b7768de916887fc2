// The one deterministic order of the diff's outputs: endpoints by path then method, then enums,
// websocket methods and streams by name; strings compared by code unit (no locale).
import type { EnumUser, Subject } from './types.js';

export type SubjectRef = Pick<Subject, 'type' | 'id'>;

const SUBJECT_ORDER: Record<Subject['type'], number> = { endpoint: 0, enum: 1, 'ws-method': 2, stream: 3 };

export function compareSubjects(a: SubjectRef, b: SubjectRef): number {
  if (a.type !== b.type) return SUBJECT_ORDER[a.type] - SUBJECT_ORDER[b.type];
  if (a.type === 'endpoint') {
    const [am, ap] = splitKey(a.id);
    const [bm, bp] = splitKey(b.id);
    return cmp(ap, bp) || cmp(am, bm);
  }
  return cmp(a.id, b.id);
}

export function compareUsers(a: EnumUser, b: EnumUser): number {
  return compareSubjects(userSubject(a), userSubject(b)) || cmp(a.name, b.name);
}

function userSubject(u: EnumUser): SubjectRef {
  if (u.endpoint !== undefined) return { type: 'endpoint', id: u.endpoint };
  if (u.wsMethod !== undefined) return { type: 'ws-method', id: u.wsMethod };
  return { type: 'stream', id: u.stream! };
}

function splitKey(key: string): [string, string] {
  const i = key.indexOf(' ');
  return [key.slice(0, i), key.slice(i + 1)];
}

/** Code-unit order: stable across machines and locales. */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
