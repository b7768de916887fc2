// Resolve a service at one release: what is alive, deprecated, removed or not yet added there.
import { aliveAt, currentAt, existsAt, statusAt, type Status } from './lifecycle.js';
import type { Catalogue, Endpoint, EnumValue, Parameter, Release, SecurityScheme, Service, Stream, WsMethod } from './model.js';

export interface EndpointAt {
  endpoint: Endpoint;
  status: Status;
  /** Security requirement in force at the release (NONE when none is). */
  security: SecurityScheme;
  /** Parameters the endpoint takes at the release: its own, the service's common ones, and the signed ones. */
  parameters: Parameter[];
  /** Every parameter the catalogue knows for the endpoint at any release (for "added in X" answers). */
  knownParameters: Parameter[];
}

export interface ReleaseView {
  service: Service;
  /** The pinned release; null for a service without releases. */
  release: Release | null;
  /** Position of the pinned release (0 for unversioned services). */
  at: number;
  /** Every endpoint of the catalogue with its status at the release. */
  endpoints: EndpointAt[];
  /** Endpoints served at the release (alive or deprecated). */
  served: EndpointAt[];
  streams: Stream[];
  wsMethods: WsMethod[];
  /** Values of an enum that exist at the release. */
  enumValues(name: string): EnumValue[];
  status(item: { span: Endpoint['span'] }): Status;
}

/** Release ids of a service, oldest first. */
export function releaseIds(service: Service): string[] {
  return service.releases.map((r) => r.id);
}

export function findService(catalogue: Catalogue, id: string): Service {
  const s = catalogue.services.find((x) => x.id === id);
  if (!s) throw new Error(`unknown service "${id}" (known: ${catalogue.services.map((x) => x.id).join(', ')})`);
  return s;
}

/** Resolve a service at a release id (default: its newest release). */
export function resolveService(service: Service, releaseId?: string): ReleaseView {
  let at = service.releases.length - 1;
  if (releaseId !== undefined && service.versioned) {
    at = service.releases.findIndex((r) => r.id === releaseId);
    if (at < 0) throw new UnknownReleaseError(service, releaseId);
  }
  at = Math.max(at, 0);
  const endpoints = service.endpoints.map((e) => endpointAt(service, e, at));
  return {
    service,
    release: service.versioned ? service.releases[at] : null,
    at,
    endpoints,
    served: endpoints.filter((e) => e.status === 'alive' || e.status === 'deprecated'),
    streams: aliveAt(service.streams, at),
    wsMethods: aliveAt(service.wsMethods, at),
    enumValues: (name) => aliveAt(service.enums[name]?.values ?? [], at),
    status: (item) => statusAt(item.span, at),
  };
}

/**
 * Endpoints as they are at some release, shared between the releases where nothing about them
 * differs (status, security, parameters): a process serving every release holds each distinct
 * state of an endpoint once, not once per release. Keyed by the service, so a reloaded catalogue
 * brings its own and the old one goes with it.
 */
const interned = new WeakMap<Service, Map<Endpoint, EndpointAt[]>>();

function endpointAt(service: Service, e: Endpoint, at: number): EndpointAt {
  let byEndpoint = interned.get(service);
  if (!byEndpoint) interned.set(service, (byEndpoint = new Map()));
  let states = byEndpoint.get(e);
  if (!states) byEndpoint.set(e, (states = []));
  const status = statusAt(e.span, at);
  const security = currentAt(e.security, at)?.scheme ?? 'NONE';
  const signedKnown = states.find((s) => (s.security === 'SIGNED') === (security === 'SIGNED'))?.knownParameters;
  const knownParameters = signedKnown ?? knownParametersOf(service, e, security === 'SIGNED');
  const parameters = knownParameters.filter((p) => existsAt(p.span, at));
  const same = states.find((s) => s.status === status && s.security === security && sameItems(s.parameters, parameters));
  if (same) return same;
  const out = { endpoint: e, status, security, parameters, knownParameters };
  states.push(out);
  return out;
}

function knownParametersOf(service: Service, e: Endpoint, isSigned: boolean): Parameter[] {
  const common = service.commonParameters.filter((p) => !p.pathPrefix || e.path.startsWith(p.pathPrefix));
  const signed = isSigned ? service.signedParameters : [];
  const own = new Set(e.parameters.map((p) => p.name));
  // An endpoint's own definition of a parameter wins over the service-wide one, a SIGNED one's
  // signing parameters over the optional copies service.yaml accepts on its path (signedParametersAccepted).
  const signedNames = new Set(signed.map((p) => p.name));
  return [...e.parameters, ...[...common.filter((p) => !signedNames.has(p.name)), ...signed].filter((p) => !own.has(p.name))];
}

const sameItems = <T>(a: readonly T[], b: readonly T[]) => a.length === b.length && a.every((x, i) => x === b[i]);

export class UnknownReleaseError extends Error {
  constructor(
    readonly service: Service,
    readonly releaseId: string,
  ) {
    super(`unknown release "${releaseId}" for service ${service.id}; valid releases: ${releaseIds(service).join(', ')}`);
    this.name = 'UnknownReleaseError';
  }
}
