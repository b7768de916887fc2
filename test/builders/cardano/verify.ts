// The properties every successful build must have (spec "Verifying"), checked with CSL
// directly and with numbers taken from outside the builder code (cost models from the JSON).
import * as CSL from '../../../src/builders/cardano/csl.js';
import * as assert from '../../support/assert.js';
import models from '../../../src/builders/cardano/cost-models.json' with { type: 'json' };
import { BuilderInputError } from '../../../src/builders/plugin.js';
import type { UtxoJson } from './fixtures.js';

const big = (n: bigint | number | string) => CSL.BigNum.from_str(String(n));
const LINEAR_FEE = CSL.LinearFee.new(big(44), big(155_381));
const PRICES = CSL.ExUnitPrices.new(CSL.UnitInterval.new(big(577), big(10_000)), CSL.UnitInterval.new(big(721), big(10_000_000)));
const DATA_COST = CSL.DataCost.new_coins_per_byte(big(4310));

export interface Decoded {
  tx: CSL.Transaction;
  body: CSL.TransactionBody;
  witnesses: CSL.TransactionWitnessSet;
  fee: bigint;
  /** Outputs as { address, coin, assets } for easy assertions. */
  outputs: { address: string; coin: bigint; assets: Map<string, bigint>; inlineDatum?: string }[];
  inputs: string[];
}

export function valueMap(v: CSL.Value): Map<string, bigint> {
  const m = new Map<string, bigint>([['lovelace', BigInt(v.coin().to_str())]]);
  const ma = v.multiasset();
  if (ma) {
    const policies = ma.keys();
    for (let i = 0; i < policies.len(); i++) {
      const p = policies.get(i);
      const assets = ma.get(p)!;
      const names = assets.keys();
      for (let j = 0; j < names.len(); j++) {
        const n = names.get(j);
        m.set(p.to_hex() + Buffer.from(n.name()).toString('hex'), BigInt(assets.get(n)!.to_str()));
      }
    }
  }
  return m;
}

const add = (m: Map<string, bigint>, unit: string, q: bigint) => m.set(unit, (m.get(unit) ?? 0n) + q);

export function decode(txHex: string): Decoded {
  const tx = CSL.Transaction.from_hex(txHex);
  assert.is(tx.to_hex(), txHex, 'decode/encode round trip is not byte-identical');
  const body = tx.body();
  const outs = body.outputs();
  const outputs: Decoded['outputs'] = [];
  for (let i = 0; i < outs.len(); i++) {
    const o = outs.get(i);
    outputs.push({ address: o.address().to_bech32(), coin: BigInt(o.amount().coin().to_str()), assets: valueMap(o.amount()), inlineDatum: o.plutus_data()?.to_hex() });
  }
  const ins = body.inputs();
  const inputs: string[] = [];
  for (let i = 0; i < ins.len(); i++) inputs.push(`${ins.get(i).transaction_id().to_hex()}#${ins.get(i).index()}`);
  return { tx, body, witnesses: tx.witness_set(), fee: BigInt(body.fee().to_str()), outputs, inputs };
}

export interface VerifyOptions {
  /** Every UTxO the tx may spend (wallet inputs, script UTxO, collateral). */
  utxos: UtxoJson[];
  /** Distinct keys that will sign (payment keys of spent inputs and collateral, required signers, certificate keys). */
  signers: number;
  /** Deposit taken by certificates. */
  deposit?: bigint;
}

export const outpointOf = (u: UtxoJson) => `${u.input.txHash}#${u.input.outputIndex}`;

/** Check the spec's properties and return the decoded transaction. */
export function verifyTx(txHex: string, options: VerifyOptions): Decoded {
  const d = decode(txHex);
  const byOutpoint = new Map(options.utxos.map((u) => [outpointOf(u), u]));

  // inputs = outputs + fee (+ deposit) − mint, per unit.
  const balance = new Map<string, bigint>();
  for (const ref of d.inputs) {
    const u = byOutpoint.get(ref);
    assert.ok(u, `input ${ref} is not one of the given UTxOs`);
    for (const a of u!.output.amount) add(balance, a.unit, BigInt(a.quantity));
  }
  const mint = d.body.mint();
  if (mint) {
    const policies = mint.keys();
    for (let i = 0; i < policies.len(); i++) {
      const p = policies.get(i);
      const assetsList = mint.get(p)!;
      for (let k = 0; k < assetsList.len(); k++) {
        const assets = assetsList.get(k)!;
        const names = assets.keys();
        for (let j = 0; j < names.len(); j++) {
          const n = names.get(j);
          add(balance, p.to_hex() + Buffer.from(n.name()).toString('hex'), BigInt(assets.get(n)!.to_str()));
        }
      }
    }
  }
  for (const o of d.outputs) for (const [unit, q] of o.assets) add(balance, unit, -q);
  add(balance, 'lovelace', -d.fee - (options.deposit ?? 0n));
  for (const [unit, q] of balance) assert.is(q, 0n, `value not preserved for ${unit}: inputs + mint − outputs − fee − deposit = ${q}`);

  // fee ≥ CSL's min fee once signed by `signers` keys, plus the script execution fee.
  const minFee = minFeeSigned(d.tx, options.signers);
  assert.ok(d.fee >= minFee, `fee ${d.fee} below the min fee ${minFee} for the signed size`);

  // every output (and collateral return) carries at least its min-ADA.
  const outs = d.body.outputs();
  const all = [...Array(outs.len()).keys()].map((i) => outs.get(i));
  const ret = d.body.collateral_return();
  if (ret) all.push(ret);
  for (const o of all) {
    const min = BigInt(CSL.min_ada_for_output(o, DATA_COST).to_str());
    assert.ok(BigInt(o.amount().coin().to_str()) >= min, `output to ${o.address().to_bech32()} holds ${o.amount().coin().to_str()} < min-ADA ${min}`);
  }

  // the script data hash commits to the redeemers, datums and the used languages' cost models.
  const redeemers = d.witnesses.redeemers();
  if (redeemers && redeemers.len() > 0) {
    const expected = CSL.hash_script_data(redeemers, usedCostModels(d.witnesses), d.witnesses.plutus_data());
    assert.is(d.body.script_data_hash()?.to_hex(), expected.to_hex(), 'script data hash does not match redeemers + cost models');
  } else {
    assert.is(d.body.script_data_hash(), undefined, 'script data hash set without redeemers');
  }
  return d;
}

/** min_fee of the tx with `signers` fake vkey witnesses (same size as real ones) + script fee. */
export function minFeeSigned(tx: CSL.Transaction, signers: number): bigint {
  const witnesses = CSL.TransactionWitnessSet.from_bytes(tx.witness_set().to_bytes());
  const vkeys = CSL.Vkeywitnesses.new();
  for (let i = 0; i < signers; i++) {
    const key = CSL.PrivateKey.from_normal_bytes(Buffer.alloc(32, i + 1)).to_public();
    vkeys.add(CSL.Vkeywitness.new(CSL.Vkey.new(key), CSL.Ed25519Signature.from_bytes(Buffer.alloc(64, 7))));
  }
  if (signers > 0) witnesses.set_vkeys(vkeys);
  const signed = CSL.Transaction.new(tx.body(), witnesses, tx.auxiliary_data());
  return BigInt(CSL.min_fee(signed, LINEAR_FEE).to_str()) + BigInt(CSL.min_script_fee(tx, PRICES).to_str());
}

function usedCostModels(w: CSL.TransactionWitnessSet): CSL.Costmdls {
  const all = CSL.Costmdls.new();
  const scripts = w.plutus_scripts();
  const seen = new Set<number>();
  for (let i = 0; scripts && i < scripts.len(); i++) seen.add(scripts.get(i).language_version().kind());
  const table: [CSL.Language, number[], number][] = [
    [CSL.Language.new_plutus_v1(), models.plutusV1, CSL.LanguageKind.PlutusV1],
    [CSL.Language.new_plutus_v2(), models.plutusV2, CSL.LanguageKind.PlutusV2],
    [CSL.Language.new_plutus_v3(), models.plutusV3, CSL.LanguageKind.PlutusV3],
  ];
  for (const [language, values, kind] of table) {
    if (!seen.has(kind)) continue;
    const model = CSL.CostModel.new();
    values.forEach((v, i) => model.set(i, CSL.Int.from_str(String(v))));
    all.insert(language, model);
  }
  return all;
}

/** Redeemers as plain data: tag ("spend"/"mint"), index, units. */
export function redeemerList(d: Decoded): { tag: string; index: number; mem: bigint; steps: bigint; data: string }[] {
  const r = d.witnesses.redeemers();
  const out = [];
  for (let i = 0; r && i < r.len(); i++) {
    const x = r.get(i);
    const tag = ['spend', 'mint', 'cert', 'reward', 'vote', 'propose'][x.tag().kind()]!;
    out.push({ tag, index: Number(x.index().to_str()), mem: BigInt(x.ex_units().mem().to_str()), steps: BigInt(x.ex_units().steps().to_str()), data: x.data().to_hex() });
  }
  return out;
}

/** `fn` must reject with a BuilderInputError (a 400) whose message matches `pattern`. */
export async function rejects(fn: () => Promise<unknown>, pattern: RegExp): Promise<BuilderInputError> {
  try {
    await fn();
  } catch (e) {
    assert.instance(e, BuilderInputError, `expected a BuilderInputError, got ${String(e)}`);
    assert.match((e as Error).message, pattern);
    return e as BuilderInputError;
  }
  assert.unreachable(`expected a rejection matching ${pattern}`);
  throw new Error('unreachable');
}
