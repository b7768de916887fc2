// mint_tokens with a negative quantity burns tokens held in the inputs. Where the reference's
// selection (which ignores burns) picks UTxOs holding the tokens, the transaction is the one it
// builds; where it would pick none, the burned tokens are selected too.
import { suite } from '../../support/uvu.js';
import * as assert from '../../support/assert.js';
import * as CSL from '../../../src/builders/cardano/csl.js';
import mintTokens from '../../../src/builders/cardano/mint-tokens.js';
import { ALICE, ALWAYS_SUCCEEDS_V3, ada, mintTokensRequest, scriptHash, utxo, walletInputs } from './fixtures.js';
import { outpointOf, redeemerList, rejects, verifyTx } from './verify.js';

const test = suite('mint_tokens burns');

const build = async (body: unknown) => ((await mintTokens(body)) as { txHex: string }).txHex;
const MESH = scriptHash(ALWAYS_SUCCEEDS_V3, 'v3') + Buffer.from('MESH').toString('hex');
const holding = (seed: string, lovelace: bigint, mesh: bigint) => utxo(seed, 0, ALICE.address, lovelace, [[MESH, mesh]]);

function burnRequest(quantity: bigint, inputs: ReturnType<typeof walletInputs>) {
  return { ...mintTokensRequest(quantity), inputs };
}

/** The signed MESH amount in the transaction's mint field. */
function minted(txHex: string): bigint {
  const mint = CSL.Transaction.from_hex(txHex).body().mint()!;
  return BigInt(mint.get(mint.keys().get(0))!.get(0)!.get(CSL.AssetName.new(Buffer.from('MESH')))!.to_str());
}

test('burn from the UTxO the reference selection picks: the rest of the tokens go to change', async () => {
  const req = burnRequest(-40n, [holding('mesh a', ada(20), 100n)]);
  const txHex = await build(req);
  const d = verifyTx(txHex, { utxos: [...req.inputs, req.collateral], signers: 1 });
  assert.is(minted(txHex), -40n);
  assert.equal(d.inputs, [outpointOf(req.inputs[0]!)]);
  assert.is(d.outputs.length, 1, 'change only');
  assert.is(d.outputs[0]!.assets.get(MESH), 60n);
  const redeemers = redeemerList(d);
  assert.equal(redeemers.map((r) => [r.tag, r.index]), [['mint', 0]]);
  assert.ok(redeemers[0]!.mem > 0n && redeemers[0]!.steps > 0n, 'the minting policy was evaluated');
});

test('burn every token held: no MESH left in the change', async () => {
  const req = burnRequest(-100n, [holding('mesh a', ada(20), 100n)]);
  const d = verifyTx(await build(req), { utxos: [...req.inputs, req.collateral], signers: 1 });
  assert.is(d.outputs[0]!.assets.get(MESH), undefined);
});

test('tokens the lovelace selection would skip are selected for the burn', async () => {
  // The reference takes 'wallet a' and 'wallet c' (lovelace only) and never reaches the MESH UTxO.
  const inputs = [...walletInputs(), holding('mesh b', ada(2), 30n)];
  const req = burnRequest(-30n, inputs);
  const txHex = await build(req);
  const d = verifyTx(txHex, { utxos: [...req.inputs, req.collateral], signers: 1 });
  assert.is(minted(txHex), -30n);
  assert.ok(d.inputs.includes(outpointOf(inputs.at(-1)!)), 'the MESH UTxO is spent');
  assert.is(d.outputs[0]!.assets.get(MESH), undefined);
});

test('burning more than the inputs hold: 400 naming the missing tokens', async () => {
  const req = burnRequest(-31n, [...walletInputs(), holding('mesh b', ada(2), 30n)]);
  await rejects(() => build(req), new RegExp(`^inputs: insufficient funds: still missing 1 ${MESH}`));
});

test.run();
