// Asset lists: parsing, conversion to a CSL Value exactly as the reference does it, and BigInt
// sums for coin selection.
import * as CSL from './csl.js';
import type { Arena } from './arena.js';
import { inputError } from './errors.js';
import { asObject, field, join, quantity, stringField } from './json-fields.js';
import type { Asset } from './tx-plan.js';

export const LOVELACE = 'lovelace';
const TOKEN_UNIT = /^[0-9a-fA-F]{56}(?:[0-9a-fA-F]{2}){0,32}$/;

export function checkUnit(unit: string, path: string): string {
  if (unit === LOVELACE) return unit;
  if (!TOKEN_UNIT.test(unit)) {
    throw inputError(path, `expected "lovelace" or a 56-hex policy id followed by a hex asset name of at most 32 bytes, got ${JSON.stringify(unit.slice(0, 140))}`);
  }
  return unit.toLowerCase();
}

export function parseAsset(value: unknown, path: string, maxQuantity?: bigint): Asset {
  const obj = asObject(value, path);
  const unit = checkUnit(stringField(obj, 'unit', path), join(path, 'unit'));
  return { unit, quantity: quantity(field(obj, 'quantity', path), join(path, 'quantity'), maxQuantity) };
}

/** An `amount` list; a unit listed twice is ambiguous (the reference would both sum and overwrite it). */
export function parseAmount(values: unknown[], path: string): Asset[] {
  const seen = new Map<string, number>();
  // Array.from visits every index (map would skip holes of a sparse array).
  return Array.from(values, (value, i) => {
    const asset = parseAsset(value, `${path}[${i}]`);
    const previous = seen.get(asset.unit);
    if (previous !== undefined) throw inputError(`${path}[${i}].unit`, `unit ${asset.unit} already listed at ${path}[${previous}]`);
    seen.set(asset.unit, i);
    return asset;
  });
}

export const policyOf = (unit: string) => unit.slice(0, 56);
export const assetNameOf = (unit: string) => unit.slice(56);

/**
 * The reference's `to_value`: coin from the lovelace entry (0 if none); a multi-asset is attached
 * whenever the list is not lovelace-only — even an empty one, which makes an output with an
 * empty amount get exactly its min-ADA.
 */
export function toValue(a: Arena, assets: readonly Asset[]): CSL.Value {
  const lovelace = assets.find((x) => x.unit === LOVELACE);
  const value = a.own(CSL.Value.new(a.own(CSL.BigNum.from_str((lovelace?.quantity ?? 0n).toString()))));
  if (assets.length > 1 || lovelace === undefined) value.set_multiasset(toMultiAsset(a, assets));
  return value;
}

export function toMultiAsset(a: Arena, assets: readonly Asset[]): CSL.MultiAsset {
  const multiAsset = a.own(CSL.MultiAsset.new());
  for (const { unit, quantity: q } of assets) {
    if (unit === LOVELACE) continue;
    a.ownOpt(
      multiAsset.set_asset(
        a.own(CSL.ScriptHash.from_hex(policyOf(unit))),
        a.own(CSL.AssetName.new(Buffer.from(assetNameOf(unit), 'hex'))),
        a.own(CSL.BigNum.from_str(q.toString())),
      ),
    );
  }
  return multiAsset;
}

/**
 * Non-negative per-unit amounts, as the reference's `Value`: subtracting more than is there
 * removes the unit (clamps at zero) instead of going negative.
 */
export class AssetMap {
  private readonly amounts = new Map<string, bigint>();

  get(unit: string): bigint {
    return this.amounts.get(unit) ?? 0n;
  }

  add(unit: string, q: bigint): this {
    this.amounts.set(unit, this.get(unit) + q);
    return this;
  }

  addAll(assets: readonly Asset[]): this {
    for (const x of assets) this.add(x.unit, x.quantity);
    return this;
  }

  subtract(unit: string, q: bigint): this {
    const current = this.get(unit);
    if (current <= q) this.amounts.delete(unit);
    else this.amounts.set(unit, current - q);
    return this;
  }

  subtractAll(assets: readonly Asset[]): this {
    for (const x of assets) this.subtract(x.unit, x.quantity);
    return this;
  }

  units(): string[] {
    return [...this.amounts.keys()];
  }

  entries(): [string, bigint][] {
    return [...this.amounts.entries()];
  }
}
