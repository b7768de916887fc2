// The REST upstream of each service: service.yaml's default, or the configuration's override.
import type { Catalogue } from '../catalogue/model.js';
import { UPSTREAM_KINDS, upstreamBase } from '../upstream/upstream-base.js';
import { UsageError } from '../usage-error.js';

/** REST upstream per service: service.yaml's default, overridden by "<service>" or "<service>.rest". */
export function restUpstreams(catalogue: Catalogue, overrides: Record<string, string>): Record<string, string> {
  const kinds: readonly string[] = UPSTREAM_KINDS;
  for (const key of Object.keys(overrides)) {
    const [id, kind] = key.split('.');
    if (!catalogue.services.some((s) => s.id === id)) throw new UsageError(`--upstream names unknown service "${id}"; valid: ${catalogue.services.map((s) => s.id).join(', ')}`);
    if (kind !== undefined && !kinds.includes(kind)) throw new UsageError(`--upstream ${key}: unknown kind "${kind}"; valid: ${kinds.join(', ')}`);
  }
  const out: Record<string, string> = {};
  for (const s of catalogue.services) {
    const u = upstreamBase(s, 'rest', overrides);
    if (u) out[s.id] = u;
  }
  return out;
}

