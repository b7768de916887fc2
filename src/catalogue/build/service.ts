// service.yaml: the service itself (its upstreams, envelope and error codes, builders, signed and
// common parameters), and the order in which the other files are built into it: enums before the
// parameters that name them, endpoints before the rate limits that count them and the not-served list
// that must not repeat them, schemas last.
import type { BuilderDef, Credentials, Service, UpstreamAnswer, UpstreamUnknown, VersionHeader } from '../model.js';
import { isReason, REASON_NAMES } from '../reasons.js';
import { readChanges } from '../changes/read.js';
import { NO_CHANGES } from '../changes/types.js';
import { dense, type RawFile, type ServiceBuild } from './context.js';
import { checkEndpointDuplicates, checkReplacements, endpoints } from './endpoints.js';
import { enums } from './enums.js';
import { checkNotServed, notServed } from './not-served.js';
import { checkParameterEnums, parameter } from './parameters.js';
import { checkTemplateAmbiguity } from './paths.js';
import { rateLimits } from './rate-limits.js';
import { releases } from './releases.js';
import { compileSchemas } from './schemas.js';
import { checkKeepAlive, streams } from './streams.js';
import { checkWebsocketPaths, wsApi } from './ws-api.js';

export function buildFrom(b: ServiceBuild, sf: RawFile): Service {
  const s = sf.data as Record<string, any>;
  if (s.id !== b.id) b.problem(sf, ['id'], `id "${s.id}" must equal the folder name "${b.id}"`);
  const relFile = b.files.get('releases')?.[0];
  const list = relFile ? releases(b, relFile) : [];
  b.svc = {
    id: b.id, title: s.title, description: s.description, source: s.source, kind: s.kind,
    versioned: !!relFile, releases: list, upstreams: s.upstreams ?? {},
    errors: { envelope: s.errors?.envelope ?? 'error', codes: s.errors?.codes ?? {}, documentationUrl: s.errors?.documentationUrl }, rateLimits: [],
    credentials: credentials(b, sf, s.credentials), rewriteLinks: s.links === 'rewrite',
    apiKeyHeader: s.security?.apiKeyHeader,
    signedParameters: [], commonParameters: [], schemas: s.schemas ?? {}, builders: dense(s.builders ?? []),
    endpoints: [], enums: {}, placeholders: {}, streams: [], wsMethods: [], changes: NO_CHANGES, notServed: [],
  };
  if (s.versionHeader) b.svc.versionHeader = versionHeader(b, sf, s.versionHeader);
  if (s.upstreamRelease !== undefined) {
    if (b.releaseIndex.has(String(s.upstreamRelease))) b.svc.upstreamRelease = String(s.upstreamRelease);
    else b.problem(sf, ['upstreamRelease'], `upstreamRelease "${s.upstreamRelease}" is not in releases.yaml`);
  }
  if (b.svc.errors.envelope === 'code-msg' && b.svc.errors.codes.unknown === undefined) {
    b.problem(sf, ['errors'], `errors: the code-msg envelope needs codes.unknown (the code of any reason not named)`);
  }
  if (s.errors?.upstreamUnknown) b.svc.errors.upstreamUnknown = upstreamUnknown(b, sf, s.errors.upstreamUnknown);
  const defaultIn = s.kind === 'builder' ? 'body' : 'query';
  b.svc.signedParameters = dense((s.security?.signedParameters ?? []).map((p: any, i: number) =>
    parameter(b, sf, ['security', 'signedParameters', i], p, defaultIn, 'security.signedParameters')));
  b.svc.commonParameters = dense((s.commonParameters ?? []).map((p: any, i: number) =>
    parameter(b, sf, ['commonParameters', i], p, defaultIn, 'commonParameters', 'common')));
  // Where the upstream reads the signing parameters on every endpoint of a path family (clients
  // sign every /sapi call), they become optional common parameters there, checked by the same schema.
  for (const a of dense<{ pathPrefix: string }>(s.security?.signedParametersAccepted ?? [])) {
    for (const p of b.svc.signedParameters) b.svc.commonParameters.push({ ...p, required: false, pathPrefix: a.pathPrefix });
  }
  checkErrorCodes(b, sf);
  checkBuilders(b, sf);
  for (const f of b.files.get('enums') ?? []) enums(b, f);
  for (const f of b.files.get('streams') ?? []) streams(b, f);
  for (const f of b.files.get('wsApi') ?? []) wsApi(b, f);
  checkWebsocketPaths(b);
  for (const f of b.files.get('endpoints') ?? []) endpoints(b, f, defaultIn);
  for (const f of b.files.get('notServed') ?? []) notServed(b, f);
  rateLimits(b, sf, dense(s.rateLimits ?? []));
  checkKeepAlive(b);
  checkParameterEnums(b);
  compileSchemas(b);
  checkEndpointDuplicates(b);
  checkTemplateAmbiguity(b);
  checkReplacements(b);
  checkNotServed(b);
  b.svc.changes = readChanges(b.files.get('changes')?.[0], b.releaseIndex, b.problems);
  return b.svc;
}

function checkBuilders(b: ServiceBuild, sf: RawFile): void {
  const seen = new Set<string>();
  (b.svc.builders as BuilderDef[]).forEach((d, i) => {
    if (seen.has(d.name)) b.problem(sf, ['builders', i, 'name'], `duplicate builder "${d.name}"`);
    seen.add(d.name);
  });
}

/**
 * Keys of errors.codes must be reasons of the central table: a typo would fall back to codes.unknown.
 * The JSON Schema's propertyNames says the same (for editors); this holds for a schema copy without it.
 */
function checkErrorCodes(b: ServiceBuild, sf: RawFile): void {
  for (const key of Object.keys(b.svc.errors.codes)) {
    if (!isReason(key)) b.problem(sf, ['errors', 'codes', key], `errors.codes: unknown key "${key}"; valid: ${REASON_NAMES.join(', ')}`);
  }
}

/**
 * errors.upstreamUnknown: the answers by which the upstream says an operation or a parameter does
 * not exist. A code is read from the code-msg envelope only; "no code" alone would match every
 * code-less error, so it needs a status; one answer cannot mean both.
 */
function upstreamUnknown(b: ServiceBuild, sf: RawFile, raw: Record<string, any>): UpstreamUnknown {
  const answers = (kind: 'operation' | 'parameter'): UpstreamAnswer[] => dense((raw[kind] ?? []).map((a: Record<string, any>, i: number): UpstreamAnswer => {
    const path = ['errors', 'upstreamUnknown', kind, i];
    if (typeof a.code === 'number' && b.svc.errors.envelope !== 'code-msg') b.problem(sf, path, `errors.upstreamUnknown.${kind}: a code is read from the code-msg envelope; this service's envelope is ${b.svc.errors.envelope}`);
    if (a.code === 'none' && a.status === undefined) b.problem(sf, path, `errors.upstreamUnknown.${kind}: code none needs a status (else every error answer without a code would count)`);
    return { status: a.status, code: a.code };
  }));
  const out = { operation: answers('operation'), parameter: answers('parameter'), source: String(raw.source ?? '') };
  const key = (a: UpstreamAnswer) => `${a.status ?? '4xx'} ${a.code ?? 'any'}`;
  const ops = new Set(out.operation.map(key));
  out.parameter.forEach((a, i) => {
    if (ops.has(key(a))) b.problem(sf, ['errors', 'upstreamUnknown', 'parameter', i], `errors.upstreamUnknown: answer ${key(a)} is listed under both operation and parameter`);
  });
  return out;
}

/** versionHeader: every value names a release of this service, and no two values name one release. */
function versionHeader(b: ServiceBuild, sf: RawFile, v: Record<string, any>): VersionHeader {
  const named = new Map<string, string>();
  for (const [value, release] of Object.entries<string>(v.values ?? {})) {
    if (!b.releaseIndex.has(String(release))) b.problem(sf, ['versionHeader', 'values', value], `versionHeader.values: "${value}" names release "${release}", which is not in releases.yaml`);
    const had = named.get(String(release));
    if (had !== undefined) b.problem(sf, ['versionHeader', 'values', value], `versionHeader.values: "${value}" and "${had}" both name release "${release}"; a release is sent upstream as one value`);
    named.set(String(release), value);
  }
  if (v.absent !== undefined && !b.releaseIndex.has(String(v.absent))) b.problem(sf, ['versionHeader', 'absent'], `versionHeader.absent: release "${v.absent}" is not in releases.yaml`);
  if (/^x-gateway-release$/i.test(v.name)) b.problem(sf, ['versionHeader', 'name'], `versionHeader.name: X-Gateway-Release is the gateway's own choice of release; name the upstream's header`);
  return { name: v.name, values: v.values, absent: v.absent === undefined ? undefined : String(v.absent), source: v.source, note: v.note };
}

/** credentials: a forwarded Authorization cannot also carry the client's gateway token. */
function credentials(b: ServiceBuild, sf: RawFile, c: Record<string, any> | undefined): Credentials {
  const forward = c?.forward === true;
  const tokenHeader = c?.tokenHeader ?? (forward ? 'X-Gateway-Token' : 'Authorization');
  if (forward && /^authorization$/i.test(tokenHeader)) {
    b.problem(sf, ['credentials', 'tokenHeader'], `credentials: forward: true sends the client's Authorization upstream, so gateway tokens need a header of their own (tokenHeader: X-Gateway-Token)`);
  }
  const inject = c?.inject ? { header: String(c.inject.header), prefix: String(c.inject.prefix ?? '') } : undefined;
  if (inject && inject.header.toLowerCase() === tokenHeader.toLowerCase()) {
    b.problem(sf, ['credentials', 'inject', 'header'], `credentials.inject: the gateway's credential cannot travel in ${inject.header}, where the client's gateway token does`);
  }
  return { forward, tokenHeader, inject, source: c?.source, note: c?.note };
}
