// Whether a change (or an unbridgeable entry) answers one breaking event: what compose reports as
// uncovered and what check.ts asks of every declaration.
import type { BreakingEvent } from './events.js';
import { transformNamed } from './transforms.js';
import type { Change, Unbridgeable } from './types.js';

/** Whether a change (or an unbridgeable entry) bridges one event. */
export function covers(change: Change | undefined, unbridgeable: readonly Unbridgeable[], ev: BreakingEvent): 'change' | 'unbridgeable' | null {
  for (const u of unbridgeable) {
    if (!u.parameter) return 'unbridgeable';
    if (ev.kind !== 'removed' && ev.parameter === u.parameter && (!u.values || (ev.kind === 'valueRemoved' && u.values.includes(ev.value)))) return 'unbridgeable';
  }
  if (!change) return null;
  const steps = change.request;
  if (steps.some((s) => s.kind === 'bridge')) return 'change'; // the gateway answers the whole operation itself
  const touches = (name: string, how: 'reads' | 'writes') => steps.some((s) => {
    if (s.kind === 'rename' || s.kind === 'list') return how === 'reads' ? name in s.names : Object.values(s.names).includes(name);
    if (s.kind === 'drop') return how === 'reads' && s.names.includes(name);
    if (s.kind === 'set' || s.kind === 'default') return how === 'writes' && name in s.values;
    if (s.kind === 'map') return how === 'reads' ? s.parameter === name && s.to !== name : s.to === name;
    if (s.kind === 'transform') return (transformNamed(s.name)?.[how] ?? []).includes(name);
    return false;
  });
  switch (ev.kind) {
    case 'removed': return steps.some((s) => s.kind === 'move') ? 'change' : null;
    case 'parameterRemoved': return touches(ev.parameter, 'reads') ? 'change' : null;
    case 'requiredAdded': return touches(ev.parameter, 'writes') ? 'change' : null;
    case 'valueRemoved':
      return steps.some((s) => (s.kind === 'map' && s.parameter === ev.parameter && ev.value in s.values) || (s.kind === 'transform' && (transformNamed(s.name)?.reads ?? []).includes(ev.parameter)))
        ? 'change' : null;
  }
}
