import { suite } from '../../support/uvu.js';
import * as assert from '../../support/assert.js';
import collateralReturn from '../../../src/builders/cardano/collateral-return.js';
import { ALICE, ada, collateralReturnRequest, utxo } from './fixtures.js';
import { rejects, valueMap, verifyTx } from './verify.js';

const test = suite('collateral_return');

const build = async (body: unknown) => ((await collateralReturn(body)) as { txHex: string }).txHex;

test('collateral input, total collateral 5 000 000, the rest returned to myAddress', async () => {
  const req = collateralReturnRequest();
  const d = verifyTx(await build(req), { utxos: [...req.inputs, req.collateral], signers: 1 });
  assert.is(d.body.collateral()!.len(), 1);
  assert.is(d.body.total_collateral()!.to_str(), '5000000');
  const ret = d.body.collateral_return()!;
  assert.is(ret.address().to_bech32(), ALICE.address);
  assert.equal([...valueMap(ret.amount())], [['lovelace', ada(10) - 5_000_000n]]);
  assert.is(d.outputs.length, 1);
  assert.is(d.outputs[0]!.address, ALICE.address);
});

test('collateral holding less than 5 ADA: 400 naming the collateral', async () => {
  const req = { ...collateralReturnRequest(), collateral: utxo('poor collateral', 0, ALICE.address, ada(4)) };
  await rejects(() => build(req), /^collateral: cannot set total collateral 5000000 with a collateral return to myAddress: /);
});

test.run();
