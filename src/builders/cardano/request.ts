// Parts every builder request has: the body object, `myAddress`, `inputs`, `collateral`.
import { checkDestination } from './address.js';
import type { Wallet } from './complete.js';
import { type JsonObject, asObject, stringField } from './json-fields.js';
import type { TxPlan, Utxo } from './tx-plan.js';
import { utxoField, utxoListField } from './utxo.js';

export interface CommonRequest {
  body: JsonObject;
  myAddress: string;
  wallet: Wallet;
}

export function commonRequest(body: unknown): CommonRequest {
  const obj = asObject(body, 'request body');
  return {
    body: obj,
    myAddress: checkDestination(stringField(obj, 'myAddress', ''), 'myAddress'),
    wallet: { utxos: utxoListField(obj, 'inputs', ''), path: 'inputs' },
  };
}

export function collateralField(obj: JsonObject): { utxo: Utxo; path: string } {
  return { utxo: utxoField(obj, 'collateral', ''), path: 'collateral' };
}

/** A plan with nothing in it but the change address. */
export function emptyPlan(changeAddress: string): TxPlan {
  return { inputs: [], outputs: [], collaterals: [], mints: [], certificates: [], requiredSigners: [], changeAddress };
}
