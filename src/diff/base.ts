// Base diff: the working catalogue against a base (the catalogue before an edit). A YAML edit can
// rewrite history, so the question is asked per release: for each release both catalogues have,
// what does a client pinned there see change (base at R → working at R)? Every such change is a
// history edit (an endpoint's added/removed moved, a parameter made required in a past release, an
// enum value removed retroactively), classified by the same rules as a release diff and listed
// once with every release it affects. Releases new in the working catalogue are diffed against the
// release before them, as a release diff would.
import type { Service } from '../catalogue/model.js';
import { diffWalk } from './diff.js';
import { Pinned, Walk } from './sides.js';
import type { Delta } from './types.js';

export interface BaseDiff {
  deltas: Delta[];
  /** Releases compared (every release of the working catalogue unless narrowed), oldest first. */
  releases: string[];
  /** Releases of the base that the working catalogue no longer has. */
  droppedReleases: string[];
}

/** Neutral deltas of a base diff; `only` narrows it to some releases (--release). */
export function diffBase(base: Service, head: Service, only?: readonly string[]): BaseDiff {
  const baseIds = new Set(base.releases.map((r) => r.id));
  const headIds = head.releases.map((r) => r.id);
  const releases = only ? headIds.filter((id) => only.includes(id)) : headIds;
  const merged = new Map<string, Delta>();
  const deltas: Delta[] = [];
  for (const id of releases) {
    if (baseIds.has(id)) {
      for (const d of diffWalk(new Pinned(base, head, id))) {
        const key = historyKey(d);
        const seen = merged.get(key);
        if (seen) seen.releases!.push(id);
        else {
          const first = { ...d, releases: [id] };
          merged.set(key, first);
          deltas.push(first);
        }
      }
    } else {
      const at = headIds.indexOf(id);
      if (at > 0) deltas.push(...diffWalk(new Walk(head, at - 1, at)));
    }
  }
  const droppedReleases = base.releases.map((r) => r.id).filter((id) => !headIds.includes(id));
  return { deltas, releases, droppedReleases };
}

/** One history edit seen at several releases is one delta: same kind, subject, attribute and values. */
function historyKey(d: Delta): string {
  return JSON.stringify([d.kind, d.type, d.subject.type, d.subject.id, d.parameter, d.value, d.attribute, d.before, d.after, d.required, d.inBody]);
}

