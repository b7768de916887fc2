// What a service's service.yaml says about the HTTP around its operations, compiled once per
// service and read by every stage instead of names in code: which request headers never reach its
// upstream, where a client's gateway token travels, the upstream's own version header (which value
// picks which release, which value the upstream is sent), and whether Link headers come back to
// the gateway. The gateway's own release header is named here and nowhere else.
import type { Service } from '../catalogue/model.js';

/** The gateway's own release header: a client's choice of release, stamped on every versioned answer. */
export const RELEASE_HEADER_NAME = 'X-Gateway-Release';
/** The same as node gives request headers (lower case). */
export const RELEASE_HEADER = RELEASE_HEADER_NAME.toLowerCase();

export interface VersionChoice {
  /** The header's name, lower case (as node gives request headers). */
  header: string;
  /** Each accepted value → the release it names. */
  values: ReadonlyMap<string, string>;
  /** The release of a request that chooses none (undefined: the gateway's default). */
  absent: string | undefined;
  /** The value the upstream is sent for a request carried up to `release`. */
  valueFor(release: string): string | undefined;
}

export interface Profile {
  /** Request headers never forwarded to this service's upstream. */
  drop: ReadonlySet<string>;
  /** The same, and accept-encoding: an answer the gateway rewrites must come back uncompressed. */
  dropPlain: ReadonlySet<string>;
  /** Where a client's gateway token travels, lower case. */
  tokenHeader: string;
  /** The client's Authorization reaches the upstream unchanged. */
  forwardsAuthorization: boolean;
  version: VersionChoice | null;
  rewriteLinks: boolean;
}

const profiles = new WeakMap<Service, Profile>();

/** The profile of a service (compiled on first use, kept with the loaded service). */
export function profileOf(service: Service): Profile {
  let p = profiles.get(service);
  if (!p) profiles.set(service, (p = compile(service)));
  return p;
}

function compile(service: Service): Profile {
  const tokenHeader = service.credentials.tokenHeader.toLowerCase();
  const drop = new Set([RELEASE_HEADER, tokenHeader]);
  if (!service.credentials.forward) drop.add('authorization');
  const version = versionChoice(service);
  if (version) drop.add(version.header); // replaced by the value the upstream speaks
  return {
    drop, dropPlain: new Set([...drop, 'accept-encoding']), tokenHeader, forwardsAuthorization: service.credentials.forward,
    version, rewriteLinks: service.rewriteLinks,
  };
}

function versionChoice(service: Service): VersionChoice | null {
  const v = service.versionHeader;
  if (!v) return null;
  const values = new Map(Object.entries(v.values).map(([value, release]) => [value, String(release)]));
  const position = (id: string) => service.releases.findIndex((r) => r.id === id);
  // A value names the newest release it covers, so a release is spoken as the first value at or after it.
  const byPosition = [...values].map(([value, release]) => ({ value, at: position(release) })).sort((a, b) => a.at - b.at);
  return {
    header: v.name.toLowerCase(), values, absent: v.absent,
    valueFor: (release) => byPosition.find((x) => x.at >= position(release))?.value,
  };
}
