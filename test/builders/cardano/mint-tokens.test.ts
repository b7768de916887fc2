import { suite } from '../../support/uvu.js';
import * as assert from '../../support/assert.js';
import * as CSL from '../../../src/builders/cardano/csl.js';
import mintTokens from '../../../src/builders/cardano/mint-tokens.js';
import { ALICE, ALWAYS_SUCCEEDS_V3, TRACE_FAILS_V3, TRACE_MESSAGE, mintTokensRequest, scriptHash } from './fixtures.js';
import { redeemerList, rejects, verifyTx } from './verify.js';

const test = suite('mint_tokens');

const build = async (body: unknown) => ((await mintTokens(body)) as { txHex: string }).txHex;

test('mints the quantity under the V3 policy; the tokens land in the change', async () => {
  const req = mintTokensRequest();
  const d = verifyTx(await build(req), { utxos: [...req.inputs, req.collateral], signers: 1 });
  const policy = scriptHash(ALWAYS_SUCCEEDS_V3, 'v3');
  const unit = req.toMintAsset.unit;
  const mint = d.body.mint()!;
  assert.is(mint.len(), 1);
  assert.is(mint.keys().get(0).to_hex(), policy);
  assert.is(mint.get(mint.keys().get(0))!.get(0)!.get(CSL.AssetName.new(Buffer.from('MESH')))!.to_str(), '1000');
  assert.is(d.outputs.length, 1, 'change only');
  assert.is(d.outputs[0]!.address, ALICE.address);
  assert.is(d.outputs[0]!.assets.get(unit), 1000n);
  const scripts = d.witnesses.plutus_scripts()!;
  assert.is(scripts.get(0).language_version().kind(), CSL.LanguageKind.PlutusV3);
  const redeemers = redeemerList(d);
  assert.equal(redeemers.map((r) => [r.tag, r.index]), [['mint', 0]]);
  // Even `(lam ctx (con unit ()))` costs something; 0/0 would mean the budgets were never set.
  assert.ok(redeemers[0]!.mem > 0n && redeemers[0]!.steps > 0n);
  assert.is(d.body.collateral()!.len(), 1);
  assert.is(d.body.required_signers(), undefined);
});

test('9·10^15 tokens minted exactly', async () => {
  const req = mintTokensRequest(9_000_000_000_000_001n);
  const d = verifyTx(await build(req), { utxos: [...req.inputs, req.collateral], signers: 1 });
  assert.is(d.outputs[0]!.assets.get(req.toMintAsset.unit), 9_000_000_000_000_001n);
});

test('policy id must be the hash of the script', async () => {
  const req = mintTokensRequest();
  req.toMintAsset.unit = 'ab'.repeat(28) + '4d455348';
  await rejects(() => build(req), /^toMintAsset\.unit: policy id abab\w+ does not match \w{56}, the hash of script as Plutus V3/);
});

test('a failing minting policy: 400 with its trace', async () => {
  const req = mintTokensRequest();
  req.script.scriptCbor = TRACE_FAILS_V3;
  req.toMintAsset.unit = scriptHash(TRACE_FAILS_V3, 'v3') + '4d455348';
  const e = await rejects(() => build(req), /^toMintAsset: script evaluation failed: mint redeemer #0 \(toMintAsset\) failed/);
  assert.ok(e.message.includes(TRACE_MESSAGE), e.message);
});

test('quantity: zero, fractional and outside i64 are refused (negative burns: burn.test.ts)', async () => {
  for (const [q, pattern] of [
    ['0', /^toMintAsset\.quantity: must be greater than zero/],
    ['1.5', /^toMintAsset\.quantity: not a decimal integer: "1\.5"/],
    ['9223372036854775808', /^toMintAsset\.quantity: quantity 9223372036854775808 exceeds the maximum 9223372036854775807/],
    ['-9223372036854775809', /^toMintAsset\.quantity: quantity -9223372036854775809 is below the minimum -9223372036854775808/],
  ] as const) {
    const req = mintTokensRequest();
    req.toMintAsset.quantity = q;
    await rejects(() => build(req), pattern);
  }
});

test.run();
