import { suite } from '../../support/uvu.js';
import * as assert from '../../support/assert.js';
import * as CSL from '../../../src/builders/cardano/csl.js';
import lockFund from '../../../src/builders/cardano/lock-fund.js';
import { ALICE, HELLO_WORLD_HASH, dataCbor, lockFundRequest, ownerDatum, scriptAddress } from './fixtures.js';
import { verifyTx } from './verify.js';

const test = suite('lock_fund');

const build = async (body: unknown) => ((await lockFund(body)) as { txHex: string }).txHex;

test('script output carries exactly its min-ADA (1 034 400 for a 28-byte owner datum) and the inline datum', async () => {
  const req = lockFundRequest();
  const d = verifyTx(await build(req), { utxos: req.inputs, signers: 1 });
  assert.is(d.outputs.length, 2);
  const [locked, change] = d.outputs;
  assert.is(locked!.address, scriptAddress(HELLO_WORLD_HASH));
  assert.is(locked!.coin, 1_034_400n);
  assert.equal([...locked!.assets.keys()], ['lovelace']);
  assert.is(locked!.inlineDatum, dataCbor(ownerDatum(ALICE.paymentKeyHash)));
  assert.is(d.tx.body().outputs().get(0).has_data_hash(), false, 'inline datum, not a datum hash');
  assert.is(change!.address, ALICE.address);
  assert.is(d.witnesses.plutus_data(), undefined, 'no datum witness needed to lock');
  assert.is(d.body.script_data_hash(), undefined);
});

test('min-ADA grows with the datum; big integers in the datum survive (no JSON round trip)', async () => {
  const datum = '{"constructor":0,"fields":[{"int":123456789012345678901234567890},{"list":[{"bytes":"00ff"},{"map":[{"k":{"int":1},"v":{"bytes":""}}]}]}]}';
  const req = { ...lockFundRequest(), datum };
  const d = verifyTx(await build(req), { utxos: req.inputs, signers: 1 });
  assert.is(d.outputs[0]!.inlineDatum, dataCbor(datum));
  assert.match(d.tx.body().outputs().get(0).plutus_data()!.to_json(CSL.PlutusDatumSchema.DetailedSchema), '123456789012345678901234567890');
  const locked = d.tx.body().outputs().get(0);
  const minAda = BigInt(CSL.min_ada_for_output(locked, CSL.DataCost.new_coins_per_byte(CSL.BigNum.from_str('4310'))).to_str());
  assert.is(d.outputs[0]!.coin, minAda, 'exactly the min-ADA for this output');
  assert.is.not(minAda, 1_034_400n);
});

test.run();
