// The lifecycle every item of every file carries (added / deprecated / removed), resolved against
// releases.yaml and checked, and the one overlap rule: two items with the same key never live at
// the same release.
import type { Lifecycle, Span } from '../model.js';
import type { Path, RawFile, ServiceBuild } from './context.js';

const LIFECYCLE_KEYS = ['added', 'deprecated', 'removed'] as const;

/** Resolve and check added/deprecated/removed of one item. */
function span(b: ServiceBuild, f: RawFile, path: Path, item: Record<string, any>, what: string): Span {
  const idx: Record<string, number | null> = { added: null, deprecated: null, removed: null };
  for (const k of LIFECYCLE_KEYS) {
    const id = item[k];
    if (id === undefined) continue;
    if (!b.svc.versioned) {
      b.problem(f, [...path, k], `${what}: "${k}: ${id}" but service ${b.id} has no releases.yaml`);
      continue;
    }
    const i = b.releaseIndex.get(String(id));
    if (i === undefined) b.problem(f, [...path, k], `${what}: ${k} release "${id}" is not in releases.yaml`);
    else idx[k] = i;
  }
  const added = idx.added ?? 0;
  if (idx.removed !== null && idx.removed <= added) {
    b.problem(f, [...path, 'removed'], `${what}: removed (${item.removed}) must come after added (${item.added ?? b.svc.releases[0]?.id})`);
  }
  if (idx.deprecated !== null) {
    if (idx.deprecated < added) b.problem(f, [...path, 'deprecated'], `${what}: deprecated (${item.deprecated}) comes before added (${item.added})`);
    if (idx.removed !== null && idx.deprecated >= idx.removed) b.problem(f, [...path, 'deprecated'], `${what}: deprecated (${item.deprecated}) must come before removed (${item.removed})`);
  }
  return { added, deprecated: idx.deprecated, removed: idx.removed };
}

export function lifecycle(b: ServiceBuild, f: RawFile, path: Path, item: Record<string, any>, what: string): Lifecycle {
  const out: Lifecycle = { span: span(b, f, path, item, what), at: { file: f.file, line: f.lineOf(path) } };
  for (const k of [...LIFECYCLE_KEYS, 'replacement', 'note', 'source'] as const) {
    if (item[k] !== undefined) out[k] = String(item[k]);
  }
  return out;
}

/** Whether two spans share a release. */
export function overlaps(a: Span, o: Span): boolean {
  return a.added < (o.removed ?? Infinity) && o.added < (a.removed ?? Infinity);
}

/**
 * Two items with the same key must not exist at the same release. The problem is `message (key,
 * also at file:line)`, or what `message` says of the two items.
 */
export function checkOverlaps<T extends Lifecycle>(b: ServiceBuild, items: T[], key: (t: T) => string, message: string | ((it: T, other: T) => string)): void {
  const seen = new Map<string, T[]>();
  for (const it of items) {
    const k = key(it);
    for (const other of seen.get(k) ?? []) {
      if (!overlaps(it.span, other.span)) continue;
      const text = typeof message === 'string' ? `${message} (${k}, also at ${other.at.file}:${other.at.line})` : message(it, other);
      b.problems.push({ ...it.at, message: text });
    }
    seen.set(k, [...(seen.get(k) ?? []), it]);
  }
}
