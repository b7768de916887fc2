// unlock_fund: spend a Plutus V3 script UTxO (inline datum) with `redeemer`, signed by the
// payment key of `myAddress`; everything goes back to `myAddress` as change.
import { paymentKeyHash } from './address.js';
import { complete } from './complete.js';
import { defineBuilder } from './define-builder.js';
import { collateralField, commonRequest, emptyPlan } from './request.js';
import { parseUnlock } from './script-parts.js';

const unlockFund = defineBuilder('unlock_fund', async (body) => {
  const { body: req, myAddress, wallet } = commonRequest(body);
  const signer = paymentKeyHash(myAddress, 'myAddress', 'unlock_fund adds it as the required signer');
  const plan = emptyPlan(myAddress);
  plan.inputs.push(parseUnlock(req, '', 'v3', 'unlock_fund'));
  plan.collaterals.push(collateralField(req));
  plan.requiredSigners.push(signer);
  return complete(plan, wallet);
});

export default unlockFund;
