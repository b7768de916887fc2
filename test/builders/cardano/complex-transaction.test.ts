import { suite } from '../../support/uvu.js';
import * as assert from '../../support/assert.js';
import * as CSL from '../../../src/builders/cardano/csl.js';
import complexTransaction from '../../../src/builders/cardano/complex-transaction.js';
import { ALICE, complexTransactionRequest } from './fixtures.js';
import { redeemerList, rejects, verifyTx } from './verify.js';

const test = suite('complex_transaction');

const build = async (body: unknown) => ((await complexTransaction(body)) as { txHex: string }).txHex;

test('V2 spend + two V2 mints, sorted by policy, every redeemer evaluated', async () => {
  const req = complexTransactionRequest();
  const d = verifyTx(await build(req), { utxos: [...req.inputs, req.toUnlock.scriptUtxo, req.collateral], signers: 1 });
  const scripts = d.witnesses.plutus_scripts()!;
  assert.is(scripts.len(), 3);
  for (let i = 0; i < 3; i++) assert.is(scripts.get(i).language_version().kind(), CSL.LanguageKind.PlutusV2);
  const policies = [req.toMint1, req.toMint2].map((m) => m.toMintAsset.unit.slice(0, 56)).sort();
  const mint = d.body.mint()!;
  assert.equal([mint.keys().get(0).to_hex(), mint.keys().get(1).to_hex()], policies);
  const redeemers = redeemerList(d);
  const scriptInput = d.inputs.indexOf(`${req.toUnlock.scriptUtxo.input.txHash}#0`);
  assert.equal(redeemers.map((r) => [r.tag, r.index]).sort(), [['mint', 0], ['mint', 1], ['spend', scriptInput]]);
  for (const r of redeemers) assert.ok(r.mem > 0n && r.steps > 0n, `${r.tag} #${r.index} has units`);
  assert.is(redeemers.find((r) => r.tag === 'spend')!.data, '182a', 'redeemer {"int": 42}');
  assert.is(d.outputs.length, 1);
  assert.is(d.outputs[0]!.address, ALICE.address);
  assert.is(d.outputs[0]!.assets.get(req.toMint1.toMintAsset.unit), 1n);
  assert.is(d.outputs[0]!.assets.get(req.toMint2.toMintAsset.unit), 2n);
});

test('field paths in errors are nested (toMint2.toMintAsset.quantity, toUnlock.redeemer)', async () => {
  const req = complexTransactionRequest();
  req.toMint2.toMintAsset.quantity = 'lots';
  await rejects(() => build(req), /^toMint2\.toMintAsset\.quantity: not a decimal integer/);
  const bad = complexTransactionRequest();
  bad.toUnlock.redeemer = '{"int": }';
  await rejects(() => build(bad), /^toUnlock\.redeemer: invalid Plutus data JSON \(detailed schema\)/);
  await rejects(() => build({ ...complexTransactionRequest(), toMint1: 'nope' }), /^toMint1: expected an object, got a string/);
});

test.run();
