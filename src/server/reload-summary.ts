// What a reload changes, in one line per versioned service and served release, from the diff engine.
// The diff runs one release at a time and yields between them: with --release all a reload diffs 44
// releases, which in one go held the request loop for up to a second.
import type { PinnedReleases } from '../catalogue/pin.js';
import type { Catalogue } from '../catalogue/model.js';

const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function describeReload(before: Catalogue, after: Catalogue, pinned: PinnedReleases): Promise<string> {
  const { diffCatalogues } = await import('../diff/index.js');
  const parts: string[] = [];
  for (const s of after.services) {
    const existed = before.services.some((b) => b.id === s.id);
    if (!existed) parts.push(`${s.id}: new service`);
    if (!s.versioned || !existed) continue;
    const releases = pinned.served.map((r) => r.id).filter((id): id is string => id !== undefined && s.releases.some((r) => r.id === id));
    const counts = new Map<string, number>();
    for (const release of releases) {
      await yieldToRequests();
      for (const c of diffCatalogues(before, after, s, 'previous catalogue', { releases: [release] }).changes) counts.set(c.id, (counts.get(c.id) ?? 0) + 1);
    }
    const what = [...counts].map(([id, n]) => `${n} ${id}`).join(', ');
    parts.push(`${s.id} ${releases.join(',')}: ${what || 'no change'}`);
  }
  return parts.join('; ') || 'no change';
}
