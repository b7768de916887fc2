// The request weight of an endpoint or websocket method at one release: the entry of its weight list
// in force there, else its single weight. The gateway charges `weight` (the newest release's); the
// diff, the timeline and the evidence tests read the weight of each release through this.
import { currentAt } from './lifecycle.js';
import type { Weight, WeightEntry } from './model.js';

export function weightAt(item: { weight?: Weight; weights?: WeightEntry[] }, at: number): Weight | undefined {
  if (!item.weights) return item.weight;
  const w = currentAt(item.weights, at);
  if (!w) return undefined;
  // The entry's lifecycle is not part of the weight (the diff compares weights as JSON; the source says where it comes from).
  const { span, at: where, added, deprecated, removed, replacement, ...weight } = w;
  return weight as Weight;
}
