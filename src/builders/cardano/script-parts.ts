// Request parts shared by the script builders: a script UTxO to unlock and a token to mint.
import { paymentScriptHash } from './address.js';
import { LOVELACE, assetNameOf, checkUnit, policyOf } from './assets.js';
import { inputError } from './errors.js';
import { type JsonObject, asObject, field, join, signedQuantity, stringField } from './json-fields.js';
import { checkPlutusDataCbor, plutusDataField, scriptField, scriptHash, versionHint } from './plutus.js';
import { type LanguageVersion, type PlanInput, type PlanMint, ZERO_BUDGET } from './tx-plan.js';
import { utxoField } from './utxo.js';

/** Mint amounts are signed 64-bit on chain; a negative one burns. */
const MINT_MAX = 2n ** 63n - 1n;

/** `{ scriptUtxo, redeemer, script }` under `path`: a script input spent with its inline datum. */
export function parseUnlock(obj: JsonObject, path: string, version: LanguageVersion, builder: string): PlanInput {
  const utxoPath = join(path, 'scriptUtxo');
  const utxo = utxoField(obj, 'scriptUtxo', path);
  const redeemer = plutusDataField(obj, 'redeemer', path);
  const script = scriptField(obj, 'script', path, version);

  const hash = scriptHash(script);
  const lockedBy = paymentScriptHash(utxo.address);
  if (lockedBy === undefined) throw inputError(`${utxoPath}.output.address`, 'not a script address (its payment credential is a key hash)');
  if (lockedBy !== hash) {
    throw inputError(join(path, 'script'), `script hash ${hash} (as Plutus ${version.toUpperCase()}) does not match ${lockedBy}, the script locking ${utxoPath}${versionHint(script, builder)}`);
  }
  // The datum is taken as inline on the UTxO (no datum witness), so it must be there to evaluate.
  if (utxo.plutusData === null) throw inputError(`${utxoPath}.output.plutusData`, 'missing: the script input is spent with its inline datum');
  checkPlutusDataCbor(utxo.plutusData, `${utxoPath}.output.plutusData`);
  return { utxo, spend: { script, redeemer, exUnits: ZERO_BUDGET }, path: utxoPath };
}

/** `{ toMintAsset, redeemer, script }` under `path`: mint (or, negative, burn) `quantity` of the script's policy. */
export function parseMint(obj: JsonObject, path: string, version: LanguageVersion, builder: string): PlanMint {
  const assetPath = join(path, 'toMintAsset');
  const assetObj = asObject(field(obj, 'toMintAsset', path), assetPath);
  const asset = { unit: checkUnit(stringField(assetObj, 'unit', assetPath), `${assetPath}.unit`), quantity: signedQuantity(field(assetObj, 'quantity', assetPath), `${assetPath}.quantity`, MINT_MAX) };
  if (asset.unit === LOVELACE) throw inputError(`${assetPath}.unit`, 'lovelace cannot be minted; expected a policy id followed by an asset name');
  const redeemer = plutusDataField(obj, 'redeemer', path);
  const script = scriptField(obj, 'script', path, version);
  const hash = scriptHash(script);
  // CSL takes the policy id from the minting script; a different one in the unit would be ignored.
  if (policyOf(asset.unit) !== hash) {
    throw inputError(`${assetPath}.unit`, `policy id ${policyOf(asset.unit)} does not match ${hash}, the hash of ${join(path, 'script')} as Plutus ${version.toUpperCase()}${versionHint(script, builder)}`);
  }
  return { policyId: hash, assetName: assetNameOf(asset.unit), quantity: asset.quantity, script, redeemer, exUnits: ZERO_BUDGET, path: assetPath };
}
