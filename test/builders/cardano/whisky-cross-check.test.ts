// Our bytes vs whisky-js's serializer (the reference's CSL layer) given the same body: inputs,
// scripts, redeemers with their units, outputs (change included), mints, certificates,
// collateral and fee. Any difference in assembly order, value shapes, cost models or script data
// hash shows up here.
import { suite } from '../../support/uvu.js';
import * as assert from '../../support/assert.js';
import collateralReturn from '../../../src/builders/cardano/collateral-return.js';
import complexTransaction from '../../../src/builders/cardano/complex-transaction.js';
import delegateStake from '../../../src/builders/cardano/delegate-stake.js';
import lockFund from '../../../src/builders/cardano/lock-fund.js';
import mintTokens from '../../../src/builders/cardano/mint-tokens.js';
import sendLovelace from '../../../src/builders/cardano/send-lovelace.js';
import unlockFund from '../../../src/builders/cardano/unlock-fund.js';
import type { BuilderPlugin } from '../../../src/builders/plugin.js';
import {
  ALICE, POOL_BECH32, type UtxoJson, collateralReturnRequest, complexTransactionRequest, delegateStakeRequest, lockFundRequest,
  mintTokensRequest, sendLovelaceRequest, unlockFundRequest,
} from './fixtures.js';
import { decode } from './verify.js';
import { replayBody, whiskySerialize } from './whisky-replay.js';

const test = suite('whisky-js cross-check');

const cases: [string, BuilderPlugin, () => { myAddress: string; inputs: UtxoJson[] } & Record<string, unknown>, (r: any) => UtxoJson[]][] = [
  ['send_lovelace', sendLovelace, sendLovelaceRequest, (r) => r.inputs],
  ['lock_fund', lockFund, lockFundRequest, (r) => r.inputs],
  ['unlock_fund', unlockFund, unlockFundRequest, (r) => [...r.inputs, r.scriptUtxo, r.collateral]],
  ['mint_tokens', mintTokens, () => mintTokensRequest(9_000_000_000_000_000n), (r) => [...r.inputs, r.collateral]],
  ['delegate_stake', delegateStake, () => delegateStakeRequest(POOL_BECH32), (r) => r.inputs],
  ['collateral_return', collateralReturn, collateralReturnRequest, (r) => [...r.inputs, r.collateral]],
  ['complex_transaction', complexTransaction, complexTransactionRequest, (r) => [...r.inputs, r.toUnlock.scriptUtxo, r.collateral]],
];

for (const [name, plugin, request, utxos] of cases) {
  test(`${name}: js_serialize_tx_body of the same body gives identical bytes`, async () => {
    const req = request();
    const { txHex } = (await plugin(req)) as { txHex: string };
    const replayed = whiskySerialize(replayBody(decode(txHex), utxos(req), ALICE.address));
    assert.is(replayed, txHex);
  });
}

test('the cross-check can fail: a different fee gives different bytes', async () => {
  const req = sendLovelaceRequest();
  const { txHex } = (await sendLovelace(req)) as { txHex: string };
  const body = replayBody(decode(txHex), req.inputs, ALICE.address) as { fee: string };
  body.fee = String(BigInt(body.fee) + 1n);
  assert.is.not(whiskySerialize(body), txHex);
});

test.run();
