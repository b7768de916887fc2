// mint_tokens: mint `toMintAsset` with a Plutus V3 minting policy; the tokens land in the change.
import { complete } from './complete.js';
import { defineBuilder } from './define-builder.js';
import { collateralField, commonRequest, emptyPlan } from './request.js';
import { parseMint } from './script-parts.js';

const mintTokens = defineBuilder('mint_tokens', async (body) => {
  const { body: req, myAddress, wallet } = commonRequest(body);
  const plan = emptyPlan(myAddress);
  plan.mints.push(parseMint(req, '', 'v3', 'mint_tokens'));
  plan.collaterals.push(collateralField(req));
  return complete(plan, wallet);
});

export default mintTokens;
