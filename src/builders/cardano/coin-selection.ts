// The reference's coin selection ("select from inputs, threshold 5 000 000"), reproduced step
// for step because it decides which inputs — hence which bytes — a transaction gets.
import { AssetMap, LOVELACE } from './assets.js';
import { inputError } from './errors.js';
import type { Utxo } from './tx-plan.js';

export const SELECTION_THRESHOLD = 5_000_000n;

/**
 * Pick wallet UTxOs covering `required` plus `threshold` lovelace.
 *
 * Candidates are bucketed, in request order, by how many assets their amount lists (1, 2, 3,
 * 4+). Each still-required token is filled from buckets 2, 3, 4+; then lovelace from 1, 2, 3,
 * 4+. Taking a UTxO subtracts all its assets; a bucket pass stops once the unit is covered.
 * As in the reference, a UTxO already taken for one unit is taken again (and counted again) if a
 * later pass reaches it — unreachable for the current builders, whose outputs carry no tokens.
 */
export function selectUtxos(candidates: readonly Utxo[], required: AssetMap, threshold: bigint, path: string): Utxo[] {
  const remaining = new AssetMap();
  for (const [unit, q] of required.entries()) remaining.add(unit, q);
  remaining.add(LOVELACE, threshold);

  const buckets: number[][] = [[], [], [], []];
  candidates.forEach((utxo, i) => {
    const n = utxo.amount.length;
    buckets[n >= 1 && n <= 3 ? n - 1 : 3]!.push(i);
  });
  const [onlyLovelace, two, three, rest] = buckets as [number[], number[], number[], number[]];

  const used = new Set<number>();
  const take = (list: readonly number[], unit: string) => {
    for (const i of list) {
      if (remaining.get(unit) === 0n) return;
      const utxo = candidates[i]!;
      if (utxo.amount.some((x) => x.unit === unit)) {
        remaining.subtractAll(utxo.amount);
        used.add(i);
      }
    }
  };

  const units = remaining.units().sort();
  for (const unit of units) {
    if (unit === LOVELACE || remaining.get(unit) === 0n) continue;
    take(two, unit);
    take(three, unit);
    take(rest, unit);
  }
  take(onlyLovelace, LOVELACE);
  take(two, LOVELACE);
  take(three, LOVELACE);
  take(rest, LOVELACE);

  const missing = units.filter((u) => remaining.get(u) > 0n);
  if (missing.length > 0) {
    const list = missing.map((u) => `${remaining.get(u)} ${u}`).join(', ');
    throw inputError(path, `insufficient funds: still missing ${list} after selecting from ${candidates.length} UTxO(s) (the selection requires the outputs plus a ${threshold} lovelace threshold for fee and change)`);
  }
  return [...used].sort((x, y) => x - y).map((i) => candidates[i]!);
}
