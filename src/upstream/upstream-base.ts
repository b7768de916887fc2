// Where a service's traffic of one kind goes: the --upstream override ("<service>.<kind>", or
// plain "<service>" for REST), else service.yaml's upstreams.
import type { Service } from '../catalogue/model.js';

export type UpstreamKind = 'rest' | 'streams' | 'wsApi';
export const UPSTREAM_KINDS: readonly UpstreamKind[] = ['rest', 'streams', 'wsApi'];

export function upstreamBase(service: Service, kind: UpstreamKind, overrides: Record<string, string>): string | undefined {
  return (kind === 'rest' ? overrides[service.id] : undefined) ?? overrides[`${service.id}.${kind}`] ?? service.upstreams[kind];
}
