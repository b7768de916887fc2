// The one place that decides whether an item exists at a release. Every kind of item
// (endpoint, parameter, enum value, stream, websocket method, security requirement) goes through it.
// The list helpers use indexed loops: a cold `npm run diff` runs them thousands of times in the
// interpreter, where a for-of allocates an iterator result per step.
import type { Lifecycle, Release, Span } from './model.js';

export type Status = 'not-yet' | 'alive' | 'deprecated' | 'removed';

/** Status of an item at the release with position `at` (added ≤ at < removed is alive). */
export function statusAt(span: Span, at: number): Status {
  if (at < span.added) return 'not-yet';
  if (span.removed !== null && at >= span.removed) return 'removed';
  if (span.deprecated !== null && at >= span.deprecated) return 'deprecated';
  return 'alive';
}

/** Alive or deprecated: the item is served at that release. */
export function existsAt(span: Span, at: number): boolean {
  // statusAt(span, at) is neither not-yet nor removed (written out: the diff asks this ~10⁴ times cold).
  return at >= span.added && (span.removed === null || at < span.removed);
}

/** Items of a list that exist at a release. */
export function aliveAt<T extends Lifecycle>(items: readonly T[], at: number): T[] {
  const out: T[] = [];
  for (let i = 0; i < items.length; i++) if (existsAt(items[i].span, at)) out.push(items[i]);
  return out;
}

/** The one item of a lifecycle list (e.g. security entries) in force at a release, if any. */
export function currentAt<T extends Lifecycle>(items: readonly T[], at: number): T | undefined {
  for (let i = 0; i < items.length; i++) if (existsAt(items[i].span, at)) return items[i];
  return undefined;
}

/** A short human sentence of an item's facts against a pinned release, used in error messages. */
export function lifecycleFacts(item: Lifecycle, releases: readonly Release[], at: number): string {
  const pinned = releases[at]?.id ?? 'current';
  const s = statusAt(item.span, at);
  if (s === 'not-yet') return `added in ${releases[item.span.added].id}; this gateway serves ${pinned}`;
  if (s === 'removed') {
    const rep = item.replacement ? `; use ${item.replacement}` : '';
    return `removed in ${releases[item.span.removed!].id}; this gateway serves ${pinned}${rep}`;
  }
  if (s === 'deprecated') {
    const rep = item.replacement ? `; use ${item.replacement}` : '';
    return `deprecated in ${releases[item.span.deprecated!].id}${rep}`;
  }
  return `alive at ${pinned}`;
}
