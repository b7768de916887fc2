// Cross-check: describe a built transaction as the reference's TxBuilderBody JSON (its inputs,
// scripts, redeemers with units, outputs with the change as a plain output, mints, certificates,
// collateral, fee) and let whisky-js's own serializer (js_serialize_tx_body) build it. The bytes
// must be identical to ours.
import * as CSL from '../../../src/builders/cardano/csl.js';
import * as W from '@sidan-lab/whisky-js-nodejs';
import { type Decoded, outpointOf, redeemerList, valueMap } from './verify.js';
import type { UtxoJson } from './fixtures.js';

/** The reference's default protocol parameters (whisky Protocol::default()). */
export const WHISKY_PROTOCOL = {
  epoch: 0,
  minFeeA: 44,
  minFeeB: 155381,
  maxBlockSize: 98304,
  maxTxSize: 16384,
  maxBlockHeaderSize: 1100,
  keyDeposit: 2000000,
  poolDeposit: 500000000,
  minPoolCost: '340000000',
  priceMem: 0.0577,
  priceStep: 0.0000721,
  maxTxExMem: '16000000',
  maxTxExSteps: '10000000000',
  maxBlockExMem: '80000000',
  maxBlockExSteps: '40000000000',
  maxValSize: 5000,
  collateralPercent: 150,
  maxCollateralInputs: 3,
  coinsPerUtxoSize: 4310,
  minFeeRefScriptCostPerByte: 15,
  decentralisation: 0,
};

const assetList = (m: Map<string, bigint>) =>
  [...m].filter(([unit, q]) => unit === 'lovelace' || q !== 0n).map(([unit, quantity]) => ({ unit, quantity: quantity.toString() }));

function scriptsByHash(d: Decoded): Map<string, { scriptCbor: string; languageVersion: string }> {
  const out = new Map<string, { scriptCbor: string; languageVersion: string }>();
  const scripts = d.witnesses.plutus_scripts();
  for (let i = 0; scripts && i < scripts.len(); i++) {
    const s = scripts.get(i);
    const version = ['v1', 'v2', 'v3'][s.language_version().kind()]!;
    out.set(s.hash().to_hex(), { scriptCbor: s.to_hex(), languageVersion: version });
  }
  return out;
}

export function replayBody(d: Decoded, utxos: UtxoJson[], changeAddress: string): object {
  const byOutpoint = new Map(utxos.map((u) => [outpointOf(u), u]));
  const scripts = scriptsByHash(d);
  const redeemers = redeemerList(d);
  const redeemerFor = (tag: string, index: number) => {
    const r = redeemers.find((x) => x.tag === tag && x.index === index);
    if (!r) throw new Error(`no ${tag} redeemer #${index}`);
    return { data: r.data, exUnits: { mem: Number(r.mem), steps: Number(r.steps) } };
  };
  const txIn = (u: UtxoJson) => ({ txHash: u.input.txHash, txIndex: u.input.outputIndex, amount: u.output.amount, address: u.output.address });

  const inputs = d.inputs.map((ref, index) => {
    const u = byOutpoint.get(ref)!;
    const hash = CSL.Address.from_bech32(u.output.address).payment_cred()?.to_scripthash()?.to_hex();
    if (hash === undefined) return { pubKeyTxIn: { txIn: txIn(u) } };
    return {
      scriptTxIn: {
        txIn: txIn(u),
        scriptTxIn: {
          scriptSource: { providedScriptSource: scripts.get(hash)! },
          datumSource: { inlineDatumSource: { txHash: u.input.txHash, txIndex: u.input.outputIndex } },
          redeemer: redeemerFor('spend', index),
        },
      },
    };
  });

  const outputs = d.outputs.map((o) => ({ address: o.address, amount: assetList(o.assets), datum: o.inlineDatum ? { inline: o.inlineDatum } : null, referenceScript: null }));

  const mints: object[] = [];
  const mint = d.body.mint();
  if (mint) {
    const policies = mint.keys();
    for (let i = 0; i < policies.len(); i++) {
      const policy = policies.get(i).to_hex();
      const assets = mint.get(policies.get(i))!.get(0)!;
      const names = assets.keys();
      for (let j = 0; j < names.len(); j++) {
        const name = names.get(j);
        mints.push({
          scriptMint: {
            mint: { policyId: policy, assetName: Buffer.from(name.name()).toString('hex'), amount: Number(assets.get(name)!.to_str()) },
            redeemer: redeemerFor('mint', i),
            scriptSource: { providedScriptSource: scripts.get(policy)! },
          },
        });
      }
    }
  }

  const certificates: object[] = [];
  const certs = d.body.certs();
  for (let i = 0; certs && i < certs.len(); i++) {
    const c = certs.get(i);
    const reg = c.as_stake_registration();
    const del = c.as_stake_delegation();
    if (reg) {
      const stake = CSL.RewardAddress.new(0, reg.stake_credential()).to_address().to_bech32();
      certificates.push({ basicCertificate: { registerStake: { stakeKeyAddress: stake, coin: 2000000 } } });
    } else if (del) {
      const stake = CSL.RewardAddress.new(0, del.stake_credential()).to_address().to_bech32();
      certificates.push({ basicCertificate: { delegateStake: { stakeKeyAddress: stake, poolId: del.pool_keyhash().to_hex() } } });
    } else {
      throw new Error('unexpected certificate kind');
    }
  }

  const collaterals: object[] = [];
  const col = d.body.collateral();
  for (let i = 0; col && i < col.len(); i++) {
    const ref = `${col.get(i).transaction_id().to_hex()}#${col.get(i).index()}`;
    collaterals.push({ txIn: txIn(byOutpoint.get(ref)!) });
  }
  const signers = d.body.required_signers();
  const requiredSignatures = [...Array(signers?.len() ?? 0).keys()].map((i) => signers!.get(i).to_hex());

  const total = d.body.total_collateral();
  return {
    inputs,
    outputs,
    collaterals,
    requiredSignatures,
    referenceInputs: [],
    withdrawals: [],
    mints,
    changeAddress,
    changeDatum: null,
    metadata: [],
    validityRange: { invalidBefore: null, invalidHereafter: null },
    certificates,
    votes: [],
    signingKey: [],
    fee: d.fee.toString(),
    network: null,
    ...(total ? { totalCollateral: total.to_str(), collateralReturnAddress: changeAddress } : {}),
  };
}

/** Serialize `replayBody(...)` with whisky-js; returns its tx hex (throws its error). */
export function whiskySerialize(body: object): string {
  const result = W.js_serialize_tx_body(JSON.stringify(body), JSON.stringify(WHISKY_PROTOCOL));
  try {
    if (result.get_status() !== 'success') throw new Error(`js_serialize_tx_body failed: ${result.get_error()}`);
    return result.get_data();
  } finally {
    result.free();
  }
}

export { valueMap };
