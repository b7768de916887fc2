// send_lovelace: pay exactly 1 000 000 lovelace to `recipientAddress`, change to `myAddress`.
import { checkDestination } from './address.js';
import { complete } from './complete.js';
import { defineBuilder } from './define-builder.js';
import { stringField } from './json-fields.js';
import { commonRequest, emptyPlan } from './request.js';

export const SEND_AMOUNT = 1_000_000n;

const sendLovelace = defineBuilder('send_lovelace', async (body) => {
  const { body: req, myAddress, wallet } = commonRequest(body);
  const recipient = checkDestination(stringField(req, 'recipientAddress', ''), 'recipientAddress');
  const plan = emptyPlan(myAddress);
  plan.outputs.push({ address: recipient, amount: [{ unit: 'lovelace', quantity: SEND_AMOUNT }], path: 'recipientAddress' });
  return complete(plan, wallet);
});

export default sendLovelace;
