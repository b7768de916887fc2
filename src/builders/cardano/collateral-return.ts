// collateral_return: a collateral input with total collateral 5 000 000 and the rest of the
// collateral returned to `myAddress`.
import { complete } from './complete.js';
import { defineBuilder } from './define-builder.js';
import { collateralField, commonRequest, emptyPlan } from './request.js';

export const TOTAL_COLLATERAL = 5_000_000n;

const collateralReturn = defineBuilder('collateral_return', async (body) => {
  const { body: req, myAddress, wallet } = commonRequest(body);
  const plan = emptyPlan(myAddress);
  plan.collaterals.push(collateralField(req));
  plan.totalCollateral = TOTAL_COLLATERAL;
  return complete(plan, wallet);
});

export default collateralReturn;
