// Request weights (an endpoint's or a websocket method's): one weight, or a list that follows each
// other across releases; rules must name the item's parameters and their steps ascend.
import type { Endpoint, Weight, WeightEntry } from '../model.js';
import { currentAt } from '../lifecycle.js';
import type { Path, RawFile, ServiceBuild } from './context.js';
import { checkOverlaps, lifecycle } from './lifecycle.js';

type Weighed = Pick<Endpoint, 'key' | 'parameters'>;

/**
 * One weight, or a list of weights that follow each other across releases (like security). The
 * one in force at the newest release is `weight`: what the upstream counts today.
 */
export function weights(b: ServiceBuild, f: RawFile, path: Path, raw: number | Record<string, any> | Record<string, any>[], ep: Weighed): { weight?: Weight; weights?: WeightEntry[] } {
  if (!Array.isArray(raw)) return { weight: weight(b, f, path, raw, ep) };
  const list = raw.map((e, i) => {
    const { added, deprecated, removed, replacement, ...w } = e;
    return { ...weight(b, f, [...path, i], w, ep), ...lifecycle(b, f, [...path, i], e, `${ep.key} weight`) } as WeightEntry;
  });
  checkOverlaps(b, list, () => 'weight', `${ep.key}: weights overlap`);
  return { weight: currentAt(list, b.svc.releases.length - 1), weights: list };
}

/** The weight in one shape ({ value } or { rules, otherwise }); rules must name the endpoint's parameters, steps ascend. */
function weight(b: ServiceBuild, f: RawFile, path: Path, raw: number | Record<string, any>, ep: Weighed): Weight {
  if (typeof raw === 'number') return { value: raw, per: 'IP' };
  const w: Weight = { ...raw, per: raw.per ?? 'IP' } as Weight;
  const names = new Set([...ep.parameters.map((p) => p.name), ...b.svc.commonParameters.map((p) => p.name)]);
  if (!raw.rules) return w;
  w.rules = raw.rules.map((r: Record<string, any>, i: number) => {
    if (!names.has(r.parameter)) b.problem(f, [...path, 'rules', i, 'parameter'], `${ep.key}: weight rule names parameter "${r.parameter}", which the endpoint does not have`);
    const measure = r.measure ?? 'present';
    if ((measure === 'value' || measure === 'items') !== (r.steps !== undefined)) {
      b.problem(f, [...path, 'rules', i], `${ep.key}: weight rule on ${r.parameter}: measure ${measure} ${r.steps ? 'takes a weight, not steps' : 'needs steps'}`);
    }
    const bounds = (r.steps ?? []).map((s: { upTo?: number }) => s.upTo ?? Infinity);
    if (bounds.some((x: number, j: number) => j > 0 && x <= bounds[j - 1])) b.problem(f, [...path, 'rules', i, 'steps'], `${ep.key}: weight steps of ${r.parameter} must ascend (upTo ${bounds.join(', ')})`);
    return { ...r, measure };
  });
  return w;
}
