// UTxO objects of the request: { input: { txHash, outputIndex }, output: { address, amount, … } }.
import { checkAddress } from './address.js';
import { parseAmount } from './assets.js';
import { inputError } from './errors.js';
import { type JsonObject, arrayField, asObject, hexField, objectField, optionalHexField, stringField, u32Field } from './json-fields.js';
import type { Utxo } from './tx-plan.js';

export function parseUtxo(value: unknown, path: string): Utxo {
  const obj = asObject(value, path);
  const input = objectField(obj, 'input', path);
  const output = objectField(obj, 'output', path);
  const inPath = `${path}.input`;
  const outPath = `${path}.output`;
  const txHash = hexField(input, 'txHash', inPath);
  if (txHash.length !== 64) throw inputError(`${inPath}.txHash`, `expected 64 hex characters (32 bytes), got ${txHash.length}`);
  return {
    txHash,
    outputIndex: u32Field(input, 'outputIndex', inPath),
    address: checkAddress(stringField(output, 'address', outPath), `${outPath}.address`),
    amount: parseAmount(arrayField(output, 'amount', outPath), `${outPath}.amount`),
    dataHash: optionalHexField(output, 'dataHash', outPath),
    plutusData: optionalHexField(output, 'plutusData', outPath),
    scriptRef: optionalHexField(output, 'scriptRef', outPath),
    scriptHash: optionalHexField(output, 'scriptHash', outPath),
  };
}

export function utxoField(obj: JsonObject, key: string, path: string): Utxo {
  return parseUtxo(objectField(obj, key, path), path === '' ? key : `${path}.${key}`);
}

export const outpoint = (u: Utxo) => `${u.txHash}#${u.outputIndex}`;

/** The wallet's candidate UTxOs; an outpoint listed twice would be counted twice by selection. */
export function utxoListField(obj: JsonObject, key: string, path: string): Utxo[] {
  const fieldPath = path === '' ? key : `${path}.${key}`;
  const list = arrayField(obj, key, path);
  const seen = new Map<string, number>();
  return Array.from(list, (value, i) => {
    const utxo = parseUtxo(value, `${fieldPath}[${i}]`);
    const previous = seen.get(outpoint(utxo));
    if (previous !== undefined) throw inputError(`${fieldPath}[${i}].input`, `duplicate of ${fieldPath}[${previous}] (${outpoint(utxo)})`);
    seen.set(outpoint(utxo), i);
    return utxo;
  });
}
