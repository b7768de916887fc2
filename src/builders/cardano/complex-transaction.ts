// complex_transaction: unlock a Plutus V2 script UTxO and mint with two V2 policies in one
// evaluated transaction. The reference has no HTTP shape for it; this one is ours:
// { toUnlock: { scriptUtxo, redeemer, script }, toMint1: {...}, toMint2: {...}, myAddress, inputs, collateral }.
import { complete } from './complete.js';
import { defineBuilder } from './define-builder.js';
import { objectField } from './json-fields.js';
import { collateralField, commonRequest, emptyPlan } from './request.js';
import { parseMint, parseUnlock } from './script-parts.js';

const complexTransaction = defineBuilder('complex_transaction', async (body) => {
  const { body: req, myAddress, wallet } = commonRequest(body);
  const plan = emptyPlan(myAddress);
  plan.inputs.push(parseUnlock(objectField(req, 'toUnlock', ''), 'toUnlock', 'v2', 'complex_transaction'));
  plan.mints.push(parseMint(objectField(req, 'toMint1', ''), 'toMint1', 'v2', 'complex_transaction'),
    parseMint(objectField(req, 'toMint2', ''), 'toMint2', 'v2', 'complex_transaction'),
  );
  plan.collaterals.push(collateralField(req));
  return complete(plan, wallet);
});

export default complexTransaction;
