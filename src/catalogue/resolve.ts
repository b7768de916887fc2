// Resolve a service at one release: what is alive, deprecated, removed or not yet added there.
import { aliveAt, currentAt, statusAt, type Status } from './lifecycle.js';
import type { Catalogue, Endpoint, EnumValue, Parameter, Release, SecurityScheme, Service, Stream, WsMethod } from './model.js';
import { splitParameters, type SplitParameters } from './parameter-kinds.js';

export interface EndpointAt {
  endpoint: Endpoint;
  status: Status;
  /** Security requirement in force at the release (NONE when none is). */
  security: SecurityScheme;
  /**
   * Parameters the endpoint takes at the release: its own (query, header, path and JSON body fields;
   * pathParameters and bodyParameters below are those kinds apart), the service's common ones, and
   * the signed ones.
   */
  parameters: Parameter[];
  /** Every parameter the catalogue knows for the endpoint at any release (for "added in X" answers). */
  knownParameters: Parameter[];
  /** The path's {name} parameters in path order: alive whenever the endpoint is, always required. */
  pathParameters: readonly Parameter[];
  /** JSON body fields (in: body) alive at the release; bodySchemaAt (validators.ts) composes their object schema. */
  bodyParameters: readonly Parameter[];
  /** Every body field the catalogue knows for the endpoint at any release. */
  knownBodyParameters: readonly Parameter[];
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
  return resolveServiceAt(service, Math.max(at, 0));
}

/**
 * Resolve a service at the release with position `at` (0 for a service without releases). Callers
 * that already hold positions (the diff walks hundreds of them) skip the lookup by id.
 */
export function resolveServiceAt(service: Service, at: number): ReleaseView {
  let views = resolved.get(service);
  if (!views) resolved.set(service, (views = new Map()));
  let view = views.get(at);
  if (!view) views.set(at, (view = resolveNow(service, at)));
  return view;
}

/**
 * Views already resolved, per service and release position: the gateways and tools of a process
 * that load an unchanged catalogue share its model (./parsed-models.ts), so they resolve each
 * release once. Keyed by the service, they go with its model.
 */
const resolved = new WeakMap<Service, Map<number, ReleaseView>>();

function resolveNow(service: Service, at: number): ReleaseView {
  let byEndpoint = interned.get(service);
  if (!byEndpoint) interned.set(service, (byEndpoint = new Map()));
  const endpoints: EndpointAt[] = [];
  const served: EndpointAt[] = [];
  // Indexed loops here: a cold `npm run diff` resolves hundreds of services in the interpreter,
  // where closures and for-of iterator results per item cost.
  for (let i = 0; i < service.endpoints.length; i++) {
    const v = endpointAt(service, byEndpoint, service.endpoints[i], at);
    endpoints.push(v);
    if (v.status === 'alive' || v.status === 'deprecated') served.push(v);
  }
  return {
    service,
    release: service.versioned ? service.releases[at] : null,
    at,
    endpoints,
    served,
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
const interned = new WeakMap<Service, Map<Endpoint, EndpointStates>>();

/** One endpoint's parameters by kind (computed once) and its distinct states so far. */
interface EndpointStates {
  split: SplitParameters;
  states: EndpointAt[];
}

function endpointAt(service: Service, byEndpoint: Map<Endpoint, EndpointStates>, e: Endpoint, at: number): EndpointAt {
  let entry = byEndpoint.get(e);
  if (!entry) byEndpoint.set(e, (entry = { split: splitParameters(e), states: [] }));
  const { split, states } = entry;
  const status = statusAt(e.span, at);
  const security = currentAt(e.security, at)?.scheme ?? 'NONE';
  const signed = security === 'SIGNED';
  let knownParameters: Parameter[] | undefined;
  for (let i = 0; i < states.length && !knownParameters; i++) if ((states[i].security === 'SIGNED') === signed) knownParameters = states[i].knownParameters;
  knownParameters ??= knownParametersOf(service, e, signed);
  const parameters = aliveAt(knownParameters, at);
  for (let i = 0; i < states.length; i++) {
    const s = states[i];
    if (s.status === status && s.security === security && sameItems(s.parameters, parameters)) return s;
  }
  // The body fields are among `parameters`: equal parameters, equal fields.
  const bodyParameters = split.body.length ? aliveAt(split.body, at) : split.body;
  const out = { endpoint: e, status, security, parameters, knownParameters, pathParameters: split.path, bodyParameters, knownBodyParameters: split.body };
  states.push(out);
  return out;
}

/**
 * The endpoint's own parameters, then the service's common ones on its path, then (SIGNED) the
 * signing ones. An endpoint's own definition of a parameter wins over the service-wide one, a
 * SIGNED one's signing parameters over the optional copies service.yaml accepts on its path
 * (signedParametersAccepted).
 */
function knownParametersOf(service: Service, e: Endpoint, signed: boolean): Parameter[] {
  const wide = serviceWide(service);
  const own = e.parameters;
  // Few endpoints redefine a service-wide parameter: only those are searched name by name.
  let clash = false;
  for (let i = 0; i < own.length && !clash; i++) clash = wide.names.has(own[i].name);
  const out = own.slice();
  const common = signed ? wide.unsignedCommon : service.commonParameters;
  for (let i = 0; i < common.length; i++) {
    const p = common[i];
    if ((!p.pathPrefix || e.path.startsWith(p.pathPrefix)) && !(clash && named(own, p.name))) out.push(p);
  }
  const signing = signed ? service.signedParameters : [];
  for (let i = 0; i < signing.length; i++) if (!(clash && named(own, signing[i].name))) out.push(signing[i]);
  return out;
}

interface ServiceWide {
  signed: readonly Parameter[];
  /** Names of the common and the signed parameters. */
  names: ReadonlySet<string>;
  /** The common parameters a SIGNED endpoint takes: those without a signed namesake. */
  unsignedCommon: readonly Parameter[];
}

/** Per service, keyed by its parameter lists (a narrowed copy of a service shares them). */
const serviceWideCache = new WeakMap<readonly Parameter[], ServiceWide>();

function serviceWide(service: Service): ServiceWide {
  let w = serviceWideCache.get(service.commonParameters);
  if (!w || w.signed !== service.signedParameters) {
    const signedNames = new Set(service.signedParameters.map((p) => p.name));
    w = {
      signed: service.signedParameters,
      names: new Set([...service.commonParameters.map((p) => p.name), ...signedNames]),
      unsignedCommon: service.commonParameters.filter((p) => !signedNames.has(p.name)),
    };
    serviceWideCache.set(service.commonParameters, w);
  }
  return w;
}

function named(list: readonly Parameter[], name: string): boolean {
  for (let i = 0; i < list.length; i++) if (list[i].name === name) return true;
  return false;
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class UnknownReleaseError extends Error {
  constructor(
    readonly service: Service,
    readonly releaseId: string,
  ) {
    super(`unknown release "${releaseId}" for service ${service.id}; valid releases: ${releaseIds(service).join(', ')}`);
    this.name = 'UnknownReleaseError';
  }
}
