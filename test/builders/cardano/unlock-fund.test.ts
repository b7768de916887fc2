import { suite } from '../../support/uvu.js';
import * as assert from '../../support/assert.js';
import * as CSL from '../../../src/builders/cardano/csl.js';
import * as W from '@sidan-lab/whisky-js-nodejs';
import unlockFund from '../../../src/builders/cardano/unlock-fund.js';
import {
  ALICE, ALWAYS_SUCCEEDS_V3, BOB, HELLO_WORLD_V3, TRACE_FAILS_V3, TRACE_MESSAGE, UNIT_DATA, ada, messageRedeemer, ownerDatum,
  scriptAddress, scriptHash, scriptUtxo, unlockFundRequest, utxo, type UtxoJson,
} from './fixtures.js';
import { type Decoded, redeemerList, rejects, verifyTx } from './verify.js';

const test = suite('unlock_fund');

const build = async (body: unknown) => ((await unlockFund(body)) as { txHex: string }).txHex;
const allUtxos = (req: ReturnType<typeof unlockFundRequest>): UtxoJson[] => [...req.inputs, req.scriptUtxo, req.collateral];

/** Re-evaluate the final tx with whisky-js: what the scripts cost there. */
function evaluate(txHex: string, utxos: UtxoJson[]): { tag: string; index: number; mem: bigint; steps: bigint }[] {
  const list = W.JsVecString.new();
  for (const u of utxos) list.add(JSON.stringify(u));
  const r = W.js_evaluate_tx_scripts(txHex, list, W.JsVecString.new(), 'mainnet', JSON.stringify({ slotLength: 1000, zeroSlot: 4492800, zeroTime: 1596059091000 }));
  assert.is(r.get_status(), 'success', r.get_error());
  return (JSON.parse(r.get_data()) as { success: { tag: string; index: number; budget: { mem: number; steps: number } } }[]).map(({ success: s }) => ({
    tag: s.tag, index: s.index, mem: BigInt(s.budget.mem), steps: BigInt(s.budget.steps),
  }));
}

test('hello-world V3: spends the script UTxO with evaluated units ×110%, required signer, collateral', async () => {
  const req = unlockFundRequest();
  const txHex = await build(req);
  // signers: ALICE's payment key (wallet inputs, collateral and required signer are all hers).
  const d: Decoded = verifyTx(txHex, { utxos: allUtxos(req), signers: 1 });
  assert.is(d.outputs.length, 1, 'change only');
  assert.is(d.outputs[0]!.address, ALICE.address);
  const scriptRef = `${req.scriptUtxo.input.txHash}#0`;
  assert.ok(d.inputs.includes(scriptRef));
  assert.equal(d.body.required_signers()!.get(0).to_hex(), ALICE.paymentKeyHash);
  assert.is(d.body.required_signers()!.len(), 1);
  assert.is(d.body.collateral()!.len(), 1);
  assert.is(d.body.collateral()!.get(0).transaction_id().to_hex(), req.collateral.input.txHash);
  assert.is(d.body.total_collateral(), undefined);
  assert.is(d.body.collateral_return(), undefined);
  assert.is(d.witnesses.plutus_data(), undefined, 'inline datum: no datum witness');
  const scripts = d.witnesses.plutus_scripts()!;
  assert.is(scripts.len(), 1);
  assert.is(scripts.get(0).language_version().kind(), CSL.LanguageKind.PlutusV3);
  assert.is(scripts.get(0).to_hex(), HELLO_WORLD_V3);

  // Conway encoding: every set tagged 258, redeemers as a map, the V3 script under witness key 7.
  assert.is(CSL.has_transaction_set_tag(Buffer.from(txHex, 'hex')), CSL.TransactionSetsState.AllSetsHaveTag);
  assert.is(d.witnesses.redeemers()!.get_container_type(), CSL.CborContainerType.Map);
  const witnessHex = d.witnesses.to_hex();
  assert.match(witnessHex, /^a207d90102/, 'witness set: two entries, the first V3 scripts (key 7) as a tagged set');
  assert.ok(witnessHex.includes('05a18200'), 'redeemers (key 5) as a map {[spend, index]: …}');

  const [redeemer] = redeemerList(d);
  assert.is(redeemer!.tag, 'spend');
  assert.is(redeemer!.index, d.inputs.indexOf(scriptRef), 'redeemer index = position of the script input in sorted inputs');
  const [spent] = evaluate(txHex, allUtxos(req));
  assert.ok(spent!.mem > 0n && spent!.steps > 0n);
  assert.is(redeemer!.mem, (spent!.mem * 110n) / 100n);
  assert.is(redeemer!.steps, (spent!.steps * 110n) / 100n);
});

test('selected wallet UTxOs are added even though the script UTxO alone could pay', async () => {
  const req = unlockFundRequest();
  const d = verifyTx(await build(req), { utxos: allUtxos(req), signers: 1 });
  // required = 0 (no outputs; the 12 ADA script input covers it) + 5 ADA threshold:
  // "wallet a" (3 ADA) and "wallet c" (50 ADA), the lovelace-only UTxOs in request order.
  assert.is(d.inputs.length, 3);
  for (const i of [0, 2]) assert.ok(d.inputs.includes(`${req.inputs[i]!.input.txHash}#${req.inputs[i]!.input.outputIndex}`));
});

test('the redeemer index follows the sorted position of the script input', async () => {
  const hash = scriptHash(ALWAYS_SUCCEEDS_V3, 'v3');
  const locked = scriptUtxo('zz sorted in the middle?', scriptAddress(hash), ada(5), UNIT_DATA);
  const inputs = [utxo('w1', 0, ALICE.address, ada(3)), utxo('w2', 0, ALICE.address, ada(3))];
  const req = { ...unlockFundRequest(), scriptUtxo: locked, redeemer: UNIT_DATA, script: { scriptCbor: ALWAYS_SUCCEEDS_V3, languageVersion: 'v3' }, inputs };
  const d = verifyTx(await build(req), { utxos: [...inputs, locked, req.collateral], signers: 1 });
  assert.is(d.inputs.length, 3);
  const position = d.inputs.indexOf(`${locked.input.txHash}#0`);
  assert.equal(redeemerList(d).map((r) => [r.tag, r.index]), [['spend', position]]);
});

test('wrong message: evaluation fails → 400 naming the script UTxO and the evaluator error', async () => {
  const req = { ...unlockFundRequest(), redeemer: messageRedeemer('Hello, World?') };
  await rejects(() => build(req), /^scriptUtxo: script evaluation failed: spend redeemer #\d \(scriptUtxo\) failed: the validator crashed/);
});

test('owner must sign: datum owner is BOB, ALICE is the required signer → evaluation fails', async () => {
  const req = unlockFundRequest();
  req.scriptUtxo = scriptUtxo('owned by bob', req.scriptUtxo.output.address, ada(12), ownerDatum(BOB.paymentKeyHash));
  await rejects(() => build(req), /script evaluation failed/);
});

test('a failing script’s trace is in the message', async () => {
  const hash = scriptHash(TRACE_FAILS_V3, 'v3');
  const req = { ...unlockFundRequest(), scriptUtxo: scriptUtxo('locked at tracer', scriptAddress(hash), ada(5), UNIT_DATA), script: { scriptCbor: TRACE_FAILS_V3, languageVersion: 'v3' } };
  const e = await rejects(() => build(req), /script evaluation failed/);
  assert.ok(e.message.includes(TRACE_MESSAGE), e.message);
});

test('myAddress with a script payment credential cannot be the required signer', async () => {
  const req = { ...unlockFundRequest(), myAddress: scriptAddress(scriptHash(ALWAYS_SUCCEEDS_V3, 'v3')) };
  await rejects(() => build(req), /^myAddress: payment credential is a script hash, but unlock_fund adds it as the required signer needs a key hash/);
});

test('script not matching the locked UTxO, or UTxO without inline datum, is refused before building', async () => {
  const wrong = { ...unlockFundRequest(), script: { scriptCbor: ALWAYS_SUCCEEDS_V3, languageVersion: 'v3' } };
  await rejects(() => build(wrong), /^script: script hash \w{56} \(as Plutus V3\) does not match 7aef0f7e/);
  const noDatum = unlockFundRequest();
  noDatum.scriptUtxo.output.plutusData = null;
  await rejects(() => build(noDatum), /^scriptUtxo\.output\.plutusData: missing/);
  const notScript = { ...unlockFundRequest(), scriptUtxo: utxo('key locked', 0, ALICE.address, ada(5)) };
  await rejects(() => build(notScript), /^scriptUtxo\.output\.address: not a script address/);
});

test.run();
