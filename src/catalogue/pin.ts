// Pin every service of a catalogue to its release (the newest unless told otherwise).
import { UsageError } from '../usage-error.js';
import type { Catalogue } from './model.js';
import { resolveService, type ReleaseView } from './resolve.js';

/** A release for every versioned service (`all`), or per service id. */
export interface ReleasePin {
  all?: string;
  byService: Record<string, string>;
}

/** Resolve each service at its pinned release; unknown ids are usage errors listing the choices. */
export function pinViews(catalogue: Catalogue, release: ReleasePin): ReleaseView[] {
  const versioned = catalogue.services.filter((s) => s.versioned);
  for (const id of Object.keys(release.byService)) {
    const s = catalogue.services.find((x) => x.id === id);
    if (!s) throw new UsageError(`--release names unknown service "${id}"; valid: ${versioned.map((x) => x.id).join(', ')}`);
    if (!s.versioned) throw new UsageError(`--release: service "${id}" has no releases`);
  }
  if (release.all && !versioned.some((s) => s.releases.some((r) => r.id === release.all))) {
    const choices = versioned.map((s) => `${s.id}: ${s.releases.map((r) => r.id).join(', ')}`).join('; ');
    throw new UsageError(`unknown release "${release.all}"; valid releases: ${choices}`);
  }
  return catalogue.services.map((s) => {
    const id = release.byService[s.id] ?? (s.releases.some((r) => r.id === release.all) ? release.all : undefined);
    if (id !== undefined && s.versioned && !s.releases.some((r) => r.id === id)) {
      throw new UsageError(`unknown release "${id}" for service ${s.id}; valid releases: ${s.releases.map((r) => r.id).join(', ')}`);
    }
    return resolveService(s, id);
  });
}

