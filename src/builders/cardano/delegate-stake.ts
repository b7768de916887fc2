// delegate_stake: register the stake key (legacy certificate, key deposit) and delegate it to a pool.
import { checkStakeKeyAddress, poolKeyHash } from './address.js';
import { complete } from './complete.js';
import { defineBuilder } from './define-builder.js';
import { stringField } from './json-fields.js';
import { commonRequest, emptyPlan } from './request.js';

const delegateStake = defineBuilder('delegate_stake', async (body) => {
  const { body: req, myAddress, wallet } = commonRequest(body);
  // Despite its name the field holds a reward address (stake1… / stake_test1…), as in the reference.
  const stakeAddress = checkStakeKeyAddress(stringField(req, 'stakeKeyHash', ''), 'stakeKeyHash');
  // The reference takes only the 56-hex form; bech32 pool1… is accepted too and converted.
  const pool = poolKeyHash(stringField(req, 'poolId', ''), 'poolId');
  const plan = emptyPlan(myAddress);
  plan.certificates.push(
    { kind: 'stake-registration', stakeAddress, path: 'stakeKeyHash' },
    { kind: 'stake-delegation', stakeAddress, poolKeyHash: pool, path: 'poolId' },
  );
  return complete(plan, wallet);
});

export default delegateStake;
