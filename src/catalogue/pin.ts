// Pin every service of a catalogue to its release (the newest unless told otherwise).
import { UsageError } from '../usage-error.js';
import type { Catalogue, Service } from './model.js';
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


/** Several releases in one process: lists per service, or one list for every versioned service ('all' = every release). */
export interface ReleaseSpec {
  all?: string[];
  byService: Record<string, string[]>;
  /** The release a request without a choice gets; default: the newest served. */
  default?: string;
}

export interface ServedRelease {
  /** The release id (undefined when no service is versioned). */
  id: string | undefined;
  /** Every service resolved for this release: versioned ones at it (or at their own default), the rest as they are. */
  views: ReleaseView[];
}

export interface PinnedReleases {
  /** In release order, oldest first. */
  served: ServedRelease[];
  default: ServedRelease;
}

/** Resolve the catalogue at every served release; unknown ids are usage errors listing the choices. */
export function pinReleases(catalogue: Catalogue, spec: ReleaseSpec): PinnedReleases {
  const versioned = catalogue.services.filter((s) => s.versioned);
  for (const id of Object.keys(spec.byService)) {
    const s = catalogue.services.find((x) => x.id === id);
    if (!s) throw new UsageError(`--release names unknown service "${id}"; valid: ${versioned.map((x) => x.id).join(', ')}`);
    if (!s.versioned) throw new UsageError(`--release: service "${id}" has no releases`);
  }
  const all = spec.all?.includes('all') ? undefined : spec.all;
  for (const id of all ?? []) {
    if (!versioned.some((s) => s.releases.some((r) => r.id === id))) {
      throw new UsageError(`unknown release "${id}"; valid releases: ${versioned.map((s) => `${s.id}: ${s.releases.map((r) => r.id).join(', ')}`).join('; ')}`);
    }
  }
  // The list each versioned service serves, in its release order.
  const lists = new Map(versioned.map((s) => {
    const asked = spec.byService[s.id] ?? (spec.all?.includes('all') ? s.releases.map((r) => r.id) : all?.filter((id) => s.releases.some((r) => r.id === id)));
    for (const id of asked ?? []) {
      if (id !== 'all' && !s.releases.some((r) => r.id === id)) {
        throw new UsageError(`unknown release "${id}" for service ${s.id}; valid releases: ${s.releases.map((r) => r.id).join(', ')}`);
      }
    }
    const ids = asked?.includes('all') ? s.releases.map((r) => r.id) : asked?.length ? asked : defaultReleases(s);
    return [s.id, s.releases.filter((r) => ids.includes(r.id)).map((r) => r.id)] as const;
  }));
  const ids: string[] = [];
  for (const s of versioned) for (const id of lists.get(s.id)!) if (!ids.includes(id)) ids.push(id);
  const at = (id: string | undefined): ServedRelease => ({
    id,
    views: catalogue.services.map((s) => {
      if (!s.versioned) return resolveService(s);
      const list = lists.get(s.id)!;
      return resolveService(s, id !== undefined && list.includes(id) ? id : list.at(-1));
    }),
  });
  const served = ids.length ? ids.map(at) : [at(undefined)];
  // The default is the first versioned service's newest served release (each service keeps its own
  // release line: a request without a choice gets its own service's newest either way).
  const first = versioned[0] ? lists.get(versioned[0].id)!.at(-1) : undefined;
  let def = served.find((r) => r.id === first) ?? served.at(-1)!;
  if (spec.default !== undefined) {
    const found = served.find((r) => r.id === spec.default);
    if (!found) throw new UsageError(`--default-release "${spec.default}" is not served; served: ${ids.join(', ')}`);
    def = found;
  }
  return { served, default: def };
}

/**
 * What a service serves when --release names none of its releases: its newest, and every release its
 * own version header can ask for (a value's release, the release of a request without the header),
 * so a client that sends no header, or an older value, is served as it expects (and carried up).
 */
function defaultReleases(s: Service): string[] {
  const v = s.versionHeader;
  const named = new Set([...(v ? Object.values(v.values) : []), ...(v?.absent ? [v.absent] : []), s.releases.at(-1)!.id].map(String));
  return s.releases.filter((r) => named.has(r.id)).map((r) => r.id);
}
