// What broke between two adjacent releases for one operation, read from the catalogue's own
// lifecycle: the events an old client would hit at the upstream unless a change bridges them.
import { existsAt } from '../lifecycle.js';
import type { Endpoint, Service } from '../model.js';

export type BreakingEvent =
  | { kind: 'removed' }
  | { kind: 'parameterRemoved'; parameter: string }
  | { kind: 'requiredAdded'; parameter: string }
  | { kind: 'valueRemoved'; parameter: string; value: string };

/** Releases where something about an endpoint starts or ends (its own life, its parameters', their enum values'). */
const boundaries = new WeakMap<Endpoint, ReadonlySet<number>>();
function boundariesOf(service: Service, e: Endpoint): ReadonlySet<number> {
  let b = boundaries.get(e);
  if (b) return b;
  const out = new Set<number>();
  const add = (s: { added: number; removed: number | null }) => { out.add(s.added); if (s.removed !== null) out.add(s.removed); };
  add(e.span);
  for (const p of e.parameters) {
    add(p.span);
    if (p.enum) for (const v of service.enums[p.enum]?.values ?? []) add(v.span);
  }
  boundaries.set(e, (b = out));
  return b;
}

const NONE: BreakingEvent[] = [];

/** Events at release position r for an endpoint alive at r - 1 (none when it was not). */
export function eventsAt(service: Service, e: Endpoint, r: number): BreakingEvent[] {
  if (!boundariesOf(service, e).has(r) || !existsAt(e.span, r - 1)) return NONE;
  if (!existsAt(e.span, r)) return [{ kind: 'removed' }];
  const out: BreakingEvent[] = [];
  // By name: one parameter may be written as two lives (required until X, optional from X).
  const before = new Map(e.parameters.filter((p) => existsAt(p.span, r - 1)).map((p) => [p.name, p]));
  const after = new Map(e.parameters.filter((p) => existsAt(p.span, r)).map((p) => [p.name, p]));
  for (const [name, p] of before) {
    const q = after.get(name);
    if (!q) { out.push({ kind: 'parameterRemoved', parameter: name }); continue; }
    const enumName = q.enum ?? p.enum;
    if (!enumName) continue;
    for (const v of service.enums[enumName]?.values ?? []) {
      if (existsAt(v.span, r - 1) && !existsAt(v.span, r)) out.push({ kind: 'valueRemoved', parameter: name, value: v.value });
    }
  }
  for (const [name, q] of after) if (q.required && !before.get(name)?.required) out.push({ kind: 'requiredAdded', parameter: name });
  return out;
}

export function describeEvent(ev: BreakingEvent): string {
  switch (ev.kind) {
    case 'removed': return 'the operation was removed';
    case 'parameterRemoved': return `parameter ${ev.parameter} was removed`;
    case 'requiredAdded': return `parameter ${ev.parameter} became required`;
    case 'valueRemoved': return `value ${ev.parameter}=${ev.value} was removed`;
  }
}
