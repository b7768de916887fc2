// A request's weight from its endpoint's catalogue entry (Endpoint.weight): a fixed value, or the
// first rule whose parameter was sent, else `otherwise` — the way the exchange documents them
// (depth by limit, tickers by the number of symbols).
import type { Weight, WeightRule } from '../../catalogue/model.js';

/** The request's parameters as the pipeline checked them: text, or coerced to the schema's type (numbers, booleans, lists). */
export type Params = Readonly<Record<string, unknown>>;

/** Weight of one request; whole points (the stores count integers), never negative. */
export function requestWeight(w: Weight, params: Params): number {
  if (w.value !== undefined) return Math.ceil(w.value);
  for (const r of w.rules ?? []) {
    const v = params[r.parameter];
    if (v === undefined) continue;
    const weight = ruleWeight(r, v);
    if (weight !== undefined) return Math.ceil(weight);
  }
  return Math.ceil(w.otherwise ?? 0);
}

function ruleWeight(r: WeightRule, v: unknown): number | undefined {
  switch (r.measure) {
    case 'present':
      return r.weight ?? 0;
    case 'true':
      return String(v).toLowerCase() === 'true' ? r.weight ?? 0 : undefined;
    case 'value':
      return step(r, Number(Array.isArray(v) ? v[0] : v), 1);
    case 'items': {
      const n = itemCount(v);
      return step(r, n, n);
    }
  }
}

/** The first step whose upTo is at least the measure (the last one has none: everything above). */
function step(r: WeightRule, measure: number, items: number): number | undefined {
  for (const s of r.steps ?? []) {
    if (s.upTo === undefined || measure <= s.upTo) return s.perItem !== undefined ? s.perItem * items : s.weight ?? 0;
  }
  return undefined;
}

/** Items of a list parameter in either style the upstream reads: repeated keys, or one JSON array text. */
function itemCount(v: unknown): number {
  if (Array.isArray(v)) return v.length;
  if (typeof v !== 'string') return 1;
  if (v.startsWith('[')) {
    try {
      const list: unknown = JSON.parse(v);
      if (Array.isArray(list)) return list.length;
    } catch {
      /* not JSON: validation already answered for a declared JSON list; count commas below */
    }
  }
  return v ? v.split(',').length : 0;
}
