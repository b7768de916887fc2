// lock_fund: an output at `scriptAddress` holding exactly its min-ADA and `datum` inline.
import { checkAddress } from './address.js';
import { complete } from './complete.js';
import { defineBuilder } from './define-builder.js';
import { stringField } from './json-fields.js';
import { plutusDataField } from './plutus.js';
import { commonRequest, emptyPlan } from './request.js';

const lockFund = defineBuilder('lock_fund', async (body) => {
  const { body: req, myAddress, wallet } = commonRequest(body);
  const scriptAddress = checkAddress(stringField(req, 'scriptAddress', ''), 'scriptAddress');
  const datum = plutusDataField(req, 'datum', '');
  const plan = emptyPlan(myAddress);
  // An empty amount makes the output carry exactly the min-ADA for its size, datum included.
  plan.outputs.push({ address: scriptAddress, amount: [], inlineDatum: datum, path: 'scriptAddress' });
  return complete(plan, wallet);
});

export default lockFund;
