import * as CSL from '../../../src/builders/cardano/csl.js';
import { suite } from '../../support/uvu.js';
import * as assert from '../../support/assert.js';
import sendLovelace from '../../../src/builders/cardano/send-lovelace.js';
import { ALICE, BOB, TOKEN, ada, sendLovelaceRequest, txHash, utxo } from './fixtures.js';
import { minFeeSigned, rejects, verifyTx } from './verify.js';

const test = suite('send_lovelace');

const build = async (body: unknown) => ((await sendLovelace(body)) as { txHex: string }).txHex;

test('pays exactly 1 ADA to the recipient, change last, properties hold', async () => {
  const req = sendLovelaceRequest();
  const d = verifyTx(await build(req), { utxos: req.inputs, signers: 1 });
  assert.is(d.outputs.length, 2);
  assert.is(d.outputs[0]!.address, BOB.address);
  assert.equal([...d.outputs[0]!.assets], [['lovelace', 1_000_000n]]);
  assert.is(d.outputs[1]!.address, ALICE.address, 'change goes to myAddress, last');
  // CSL's fee is the min fee for the signed size; it estimates the fee field at its widest
  // (a few bytes' worth over), never more.
  const min = minFeeSigned(d.tx, 1);
  assert.ok(d.fee >= min && d.fee - min <= 44n * 8n, `fee ${d.fee} vs min ${min}`);
  assert.is(d.body.network_id(), undefined);
  assert.is(d.body.ttl_bignum(), undefined);
  assert.is(d.tx.auxiliary_data(), undefined);
  assert.is(d.witnesses.vkeys(), undefined, 'unsigned');
});

test('selection: lovelace-only UTxOs first, in request order, until outputs + 5 ADA are covered', async () => {
  const req = sendLovelaceRequest();
  // needs 1 + 5 ADA: "wallet a" (3 ADA, lovelace only) then "wallet c" (50 ADA, lovelace only);
  // the token UTxOs in between are not touched.
  const d = verifyTx(await build(req), { utxos: req.inputs, signers: 1 });
  const picked = [req.inputs[0]!, req.inputs[2]!].map((u) => `${u.input.txHash}#${u.input.outputIndex}`).sort();
  assert.equal(d.inputs, picked, 'inputs sorted by tx hash then index');
  assert.equal([...d.outputs[1]!.assets.keys()], ['lovelace'], 'no tokens in change');
});

test('selection falls back to token UTxOs when lovelace-only ones do not suffice; tokens go to change', async () => {
  const inputs = [utxo('small', 0, ALICE.address, ada(2)), utxo('tokens', 0, ALICE.address, ada(10), [[TOKEN, 9_007_199_254_740_993n]])];
  const d = verifyTx(await build({ recipientAddress: BOB.address, myAddress: ALICE.address, inputs }), { utxos: inputs, signers: 1 });
  assert.is(d.inputs.length, 2);
  assert.is(d.outputs[1]!.assets.get(TOKEN), 9_007_199_254_740_993n, 'token quantity above 2^53 kept exactly');
});

test('sorted inputs: txHash as lowercase hex, then outputIndex', async () => {
  const h = txHash('same tx');
  const inputs = [utxo('same tx', 5, ALICE.address, ada(2)), utxo('same tx', 1, ALICE.address, ada(2)), utxo('same tx', 3, ALICE.address, ada(3))];
  inputs[2]!.input.txHash = h.toUpperCase(); // uppercase in, lowercase out
  const d = verifyTx(await build({ recipientAddress: BOB.address, myAddress: ALICE.address, inputs }), { utxos: inputs.map((u) => ({ ...u, input: { ...u.input, txHash: h } })), signers: 1 });
  assert.equal(d.inputs, [`${h}#1`, `${h}#3`, `${h}#5`]);
});

test('9·10^15 lovelace UTxO: quantities stay exact end to end', async () => {
  const inputs = [utxo('whale', 0, ALICE.address, 9_000_000_000_000_000n)];
  const d = verifyTx(await build({ recipientAddress: BOB.address, myAddress: ALICE.address, inputs }), { utxos: inputs, signers: 1 });
  assert.is(d.outputs[1]!.coin, 9_000_000_000_000_000n - 1_000_000n - d.fee);
});

test('selection needs the outputs plus a 5 ADA threshold; exactly that much succeeds', async () => {
  const req = { recipientAddress: BOB.address, myAddress: ALICE.address, inputs: [utxo('just one', 0, ALICE.address, 1_600_000n)] };
  await rejects(() => build(req), /^inputs: insufficient funds: still missing 4400000 lovelace/);
  const enough = [...req.inputs, utxo('the rest', 0, ALICE.address, 4_400_000n)];
  const d = verifyTx(await build({ ...req, inputs: enough }), { utxos: enough, signers: 1 });
  assert.is(d.outputs[1]!.coin, 6_000_000n - 1_000_000n - d.fee);
});

test('Byron and enterprise addresses as recipient', async () => {
  const byron = 'Ae2tdPwUPEZFRbyhz3cpfC2CumGzNkFBN2L42rcUc2yjQpEkxDbkPodpMAi';
  const req = { ...sendLovelaceRequest(), recipientAddress: byron };
  const d = verifyTx(await build(req), { utxos: req.inputs, signers: 1 });
  assert.is(d.tx.body().outputs().get(0).address().to_bech32(), CSL.ByronAddress.from_base58(byron).to_address().to_bech32());
  const ent = { ...sendLovelaceRequest(), recipientAddress: BOB.enterprise };
  assert.is(verifyTx(await build(ent), { utxos: ent.inputs, signers: 1 }).outputs[0]!.address, BOB.enterprise);
});

test.run();
