// Where a service's version changes are found: its changes and unbridgeable entries by operation and
// release position, the lives of each operation, and the release the upstream speaks. Indexed once
// per change set (the model is immutable once built).
import { existsAt } from '../lifecycle.js';
import type { Endpoint, Service } from '../model.js';
import { allOperations } from './ws-operations.js';
import type { Change, ChangeSet, Unbridgeable } from './types.js';

interface Index {
  /** Operation → release position → its change / its unbridgeable entries. */
  changes: Map<string, Map<number, Change>>;
  unbridgeable: Map<string, Map<number, Unbridgeable[]>>;
  endpoints: Map<string, Endpoint[]>;
}
const indexes = new WeakMap<ChangeSet, Index>();

function indexOf(service: Service): Index {
  let ix = indexes.get(service.changes);
  if (ix) return ix;
  ix = { changes: new Map(), unbridgeable: new Map(), endpoints: new Map() };
  for (const c of service.changes.changes) {
    let byRelease = ix.changes.get(c.operation);
    if (!byRelease) ix.changes.set(c.operation, (byRelease = new Map()));
    if (!byRelease.has(c.index)) byRelease.set(c.index, c);
  }
  for (const u of service.changes.unbridgeable) {
    let byRelease = ix.unbridgeable.get(u.operation);
    if (!byRelease) ix.unbridgeable.set(u.operation, (byRelease = new Map()));
    byRelease.set(u.index, [...(byRelease.get(u.index) ?? []), u]);
  }
  for (const e of allOperations(service)) ix.endpoints.set(e.key, [...(ix.endpoints.get(e.key) ?? []), e]);
  indexes.set(service.changes, ix);
  return ix;
}

const NO_UNBRIDGEABLE: Unbridgeable[] = [];

export function changeAt(service: Service, r: number, operation: string): Change | undefined {
  return indexOf(service).changes.get(operation)?.get(r);
}

export function unbridgeableAt(service: Service, r: number, operation: string): Unbridgeable[] {
  return indexOf(service).unbridgeable.get(operation)?.get(r) ?? NO_UNBRIDGEABLE;
}

/** Release positions where the operation has a change or an unbridgeable entry. */
export function declaredAt(service: Service, operation: string): number[] {
  const ix = indexOf(service);
  return [...(ix.changes.get(operation)?.keys() ?? []), ...(ix.unbridgeable.get(operation)?.keys() ?? [])];
}

/** The endpoint with this key that exists at release position r. */
export function endpointAt(service: Service, key: string, r: number): Endpoint | undefined {
  return indexOf(service).endpoints.get(key)?.find((e) => existsAt(e.span, r));
}

/**
 * The endpoint a `move` at release position r lands on: the life alive at r, else the next life to
 * come after r (a successor the exchange published a release later than the removal; until it
 * arrives, an upstream that old has nowhere to send the request).
 */
export function moveTargetAt(service: Service, key: string, r: number): Endpoint | undefined {
  const lives = indexOf(service).endpoints.get(key);
  return lives?.find((e) => existsAt(e.span, r)) ?? lives?.filter((e) => e.span.added > r).sort((a, b) => a.span.added - b.span.added)[0];
}

/** Position of the release the upstream speaks: the setting, else service.yaml upstreamRelease, else the newest. */
export function upstreamIndex(service: Service, setting?: string): number {
  const id = setting ?? service.upstreamRelease;
  const i = id === undefined ? -1 : service.releases.findIndex((r) => r.id === id);
  return i >= 0 ? i : service.releases.length - 1;
}
