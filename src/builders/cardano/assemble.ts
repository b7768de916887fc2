// One pass of CSL's TransactionBuilder over a plan, in the reference serializer's order:
// inputs, outputs, collateral, (withdrawals,) mints, certificates, (votes,) required signers,
// script data hash, total collateral + return, change, build. The order matters: CSL computes
// fee, min-ADA and change from what has been added so far.
import * as CSL from './csl.js';
import { parseAddress, parseDestination, stakeCredential } from './address.js';
import { type Arena, withArena } from './arena.js';
import { toMultiAsset, toValue } from './assets.js';
import { costModels } from './cost-models.js';
import { attempt, inputError, wasmMessage } from './errors.js';
import { language } from './plutus.js';
import { builderConfig, utxoDataCost } from './protocol.js';
import type { Budget, PlanCertificate, PlanMint, PlanOutput, ProvidedScript, TxPlan, Utxo } from './tx-plan.js';

const bigNum = (a: Arena, n: bigint | number) => a.own(CSL.BigNum.from_str(n.toString()));

/**
 * Build the transaction for `plan` and return its hex. `preselected` are the wallet UTxOs chosen
 * by selection: the reference adds them to the inputs builder before re-adding every plan input
 * (CSL keys inputs by outpoint, so the repeats collapse).
 */
export function assemble(plan: TxPlan, preselected: readonly { utxo: Utxo; path: string }[]): string {
  return withArena((a) => {
    const tx = a.own(CSL.TransactionBuilder.new(builderConfig()));

    const inputs = a.own(CSL.TxInputsBuilder.new());
    for (const { utxo, path } of preselected) addRegularInput(a, inputs, utxo, path);
    for (const input of plan.inputs) {
      if (input.spend) addScriptInput(a, inputs, input.utxo, input.spend.script, input.spend.redeemer, input.spend.exUnits, input.path);
      else addRegularInput(a, inputs, input.utxo, input.path);
    }
    tx.set_inputs(inputs);

    for (const output of plan.outputs) {
      const built = buildOutput(a, output);
      attempt(output.path, 'cannot add output', () => tx.add_output(built));
    }

    const collateral = a.own(CSL.TxInputsBuilder.new());
    for (const { utxo, path } of plan.collaterals) addRegularInput(a, collateral, utxo, path);
    tx.set_collateral(collateral);

    // The reference always installs these builders, empty or not.
    tx.set_withdrawals_builder(a.own(CSL.WithdrawalsBuilder.new()));

    const mints = a.own(CSL.MintBuilder.new());
    plan.mints.forEach((mint, index) => addMint(a, mints, mint, index));
    tx.set_mint_builder(mints);

    const certificates = a.own(CSL.CertificatesBuilder.new());
    for (const cert of plan.certificates) addCertificate(a, certificates, cert);
    tx.set_certs_builder(certificates);

    tx.set_voting_builder(a.own(CSL.VotingBuilder.new()));

    for (const keyHash of plan.requiredSigners) tx.add_required_signer(a.own(CSL.Ed25519KeyHash.from_hex(keyHash)));

    attempt('transaction', 'cannot compute the script data hash', () => tx.calc_script_data_hash(costModels()));

    if (plan.totalCollateral !== undefined) {
      const returnAddress = parseDestination(a, plan.changeAddress, 'myAddress');
      attempt('collateral', `cannot set total collateral ${plan.totalCollateral} with a collateral return to myAddress`, () =>
        tx.set_total_collateral_and_return(bigNum(a, plan.totalCollateral!), returnAddress),
      );
    }

    const change = parseDestination(a, plan.changeAddress, 'myAddress');
    try {
      tx.add_change_if_needed(change);
    } catch (e) {
      const cause = wasmMessage(e);
      const short = /insufficient|not enough/i.test(cause);
      throw inputError('inputs', `${short ? 'insufficient funds for' : 'cannot balance'} the outputs, fee, deposits and change (CSL: ${cause})`);
    }

    const built = a.own(attempt('transaction', 'CSL refused to build the transaction', () => tx.build_tx()));
    return built.to_hex();
  });
}

function txInput(a: Arena, utxo: Utxo): CSL.TransactionInput {
  return a.own(CSL.TransactionInput.new(a.own(CSL.TransactionHash.from_hex(utxo.txHash)), utxo.outputIndex));
}

function addRegularInput(a: Arena, builder: CSL.TxInputsBuilder, utxo: Utxo, path: string): void {
  const address = parseAddress(a, utxo.address, `${path}.output.address`);
  const value = toValue(a, utxo.amount);
  attempt(path, 'cannot be spent as a key-hash input', () => builder.add_regular_input(address, txInput(a, utxo), value));
}

export function plutusScript(a: Arena, script: ProvidedScript): CSL.PlutusScript {
  return a.own(CSL.PlutusScript.from_hex_with_version(script.cbor, language(a, script.version)));
}

function redeemer(a: Arena, tag: CSL.RedeemerTag, index: number, data: string, units: Budget): CSL.Redeemer {
  return a.own(
    CSL.Redeemer.new(tag, bigNum(a, index), a.own(CSL.PlutusData.from_hex(data)), a.own(CSL.ExUnits.new(bigNum(a, units.mem), bigNum(a, units.steps)))),
  );
}

function addScriptInput(a: Arena, builder: CSL.TxInputsBuilder, utxo: Utxo, script: ProvidedScript, data: string, units: Budget, path: string): void {
  // The datum is inline on this very UTxO, so the witness carries no datum.
  const source = a.own(CSL.PlutusScriptSource.new(plutusScript(a, script)));
  const witness = a.own(CSL.PlutusWitness.new_with_ref_without_datum(source, redeemer(a, a.own(CSL.RedeemerTag.new_spend()), 0, data, units)));
  const value = toValue(a, utxo.amount);
  attempt(path, 'cannot add script input', () => builder.add_plutus_script_input(witness, txInput(a, utxo), value));
}

function buildOutput(a: Arena, output: PlanOutput): CSL.TransactionOutput {
  let builder = a.own(CSL.TransactionOutputBuilder.new());
  builder = a.own(builder.with_address(parseDestination(a, output.address, `${output.path}.address`)));
  if (output.inlineDatum !== undefined) builder = a.own(builder.with_plutus_data(a.own(CSL.PlutusData.from_hex(output.inlineDatum))));
  const amount = a.own(attempt(output.path, 'invalid output', () => builder.next()));
  const value = toValue(a, output.amount);
  const multiAsset = a.ownOpt(value.multiasset());
  const coin = a.own(value.coin());
  let withAmount: CSL.TransactionOutputAmountBuilder;
  if (multiAsset !== undefined && coin.is_zero()) {
    withAmount = a.own(
      attempt(output.path, 'cannot compute min-ADA', () => amount.with_asset_and_min_required_coin_by_utxo_cost(multiAsset, utxoDataCost())),
    );
  } else if (multiAsset !== undefined) {
    withAmount = a.own(amount.with_coin_and_asset(coin, multiAsset));
  } else {
    withAmount = a.own(amount.with_coin(coin));
  }
  return a.own(attempt(output.path, 'invalid output', () => withAmount.build()));
}

/** Lovelace an output must carry: its min-ADA when built with an empty amount (as the reference's get_min_utxo_value). */
export function minUtxoLovelace(output: PlanOutput): bigint {
  return withArena((a) => {
    const zero: PlanOutput = { ...output, amount: output.amount.filter((x) => x.unit !== 'lovelace') };
    let builder = a.own(CSL.TransactionOutputBuilder.new());
    builder = a.own(builder.with_address(parseAddress(a, output.address, `${output.path}.address`)));
    if (output.inlineDatum !== undefined) builder = a.own(builder.with_plutus_data(a.own(CSL.PlutusData.from_hex(output.inlineDatum))));
    const amount = a.own(builder.next());
    const withAmount = a.own(
      attempt(output.path, 'cannot compute min-ADA', () => amount.with_asset_and_min_required_coin_by_utxo_cost(toMultiAsset(a, zero.amount), utxoDataCost())),
    );
    const built = a.own(withAmount.build());
    return BigInt(a.own(a.own(built.amount()).coin()).to_str());
  });
}

function addMint(a: Arena, builder: CSL.MintBuilder, mint: PlanMint, index: number): void {
  const source = a.own(CSL.PlutusScriptSource.new(plutusScript(a, mint.script)));
  const witness = a.own(CSL.MintWitness.new_plutus_script(source, redeemer(a, a.own(CSL.RedeemerTag.new_mint()), index, mint.redeemer, mint.exUnits)));
  const name = a.own(attempt(`${mint.path}.unit`, 'invalid asset name', () => CSL.AssetName.new(Buffer.from(mint.assetName, 'hex'))));
  attempt(mint.path, 'cannot add mint', () => builder.add_asset(witness, name, a.own(CSL.Int.from_str(mint.quantity.toString()))));
}

function addCertificate(a: Arena, builder: CSL.CertificatesBuilder, cert: PlanCertificate): void {
  const credential = stakeCredential(a, cert.stakeAddress, cert.path);
  let certificate: CSL.Certificate;
  if (cert.kind === 'stake-registration') {
    // Legacy registration (no explicit deposit): the key deposit comes from the config.
    certificate = a.own(CSL.Certificate.new_stake_registration(a.own(CSL.StakeRegistration.new(credential))));
  } else {
    const pool = a.own(CSL.Ed25519KeyHash.from_hex(cert.poolKeyHash));
    certificate = a.own(CSL.Certificate.new_stake_delegation(a.own(CSL.StakeDelegation.new(credential, pool))));
  }
  attempt(cert.path, `cannot add ${cert.kind} certificate`, () => builder.add(certificate));
}
