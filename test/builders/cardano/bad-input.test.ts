// Every class of bad input is a BuilderInputError (→ 400) whose message names the field and the
// cause; nothing else may escape, whatever the body looks like.
import { suite } from '../../support/uvu.js';
import * as assert from '../../support/assert.js';
import collateralReturn from '../../../src/builders/cardano/collateral-return.js';
import lockFund from '../../../src/builders/cardano/lock-fund.js';
import mintTokens from '../../../src/builders/cardano/mint-tokens.js';
import sendLovelace from '../../../src/builders/cardano/send-lovelace.js';
import unlockFund from '../../../src/builders/cardano/unlock-fund.js';
import { defineBuilder } from '../../../src/builders/cardano/define-builder.js';
import { BuilderInputError } from '../../../src/builders/plugin.js';
import {
  ALICE, ALWAYS_SUCCEEDS_V3, BOB, TOKEN, collateralReturnRequest, lockFundRequest,
  mintTokensRequest, sendLovelaceRequest, txHash, unlockFundRequest, utxo,
} from './fixtures.js';
import { BUILDER_CASES } from './cases.js';
import { rejects } from './verify.js';

const test = suite('bad input');

const send = (body: unknown) => sendLovelace(body);
const withInputs = (inputs: unknown) => ({ ...sendLovelaceRequest(), inputs });
const withUtxo = (mutate: (u: any) => void) => {
  const req = sendLovelaceRequest();
  mutate(req.inputs[1]);
  return req;
};

test('body and nested shapes of the wrong JSON type', async () => {
  await rejects(() => send(null), /^request body: expected an object, got null/);
  await rejects(() => send([]), /^request body: expected an object, got an array/);
  await rejects(() => send('{"myAddress": 1}'), /^request body: expected an object, got a string/);
  await rejects(() => send(withInputs({})), /^inputs: expected an array, got an object/);
  await rejects(() => send(withInputs([42])), /^inputs\[0\]: expected an object, got a number/);
  await rejects(() => send(withUtxo((u) => (u.output = [1]))), /^inputs\[1\]\.output: expected an object, got an array/);
  await rejects(() => send(withUtxo((u) => (u.output.amount = { unit: 'lovelace' }))), /^inputs\[1\]\.output\.amount: expected an array, got an object/);
});

test('missing fields', async () => {
  const { recipientAddress: _r, ...noRecipient } = sendLovelaceRequest();
  await rejects(() => send(noRecipient), /^recipientAddress: missing field/);
  await rejects(() => send(withUtxo((u) => delete u.input.txHash)), /^inputs\[1\]\.input\.txHash: missing field/);
  await rejects(() => send(withUtxo((u) => delete u.output)), /^inputs\[1\]\.output: missing field/);
  const { collateral: _c, ...noCollateral } = unlockFundRequest();
  await rejects(() => unlockFund(noCollateral), /^collateral: missing field/);
  const noCbor = unlockFundRequest() as any;
  delete noCbor.script.scriptCbor;
  await rejects(() => unlockFund(noCbor), /^script\.scriptCbor: missing field/);
  const { datum: _d, ...noDatum } = lockFundRequest();
  await rejects(() => lockFund(noDatum), /^datum: missing field/);
});

test('wrong field types', async () => {
  await rejects(() => send(withUtxo((u) => (u.input.outputIndex = '1'))), /^inputs\[1\]\.input\.outputIndex: expected an integer between 0 and 4294967295, got "1"/);
  await rejects(() => send(withUtxo((u) => (u.input.outputIndex = 1.5))), /^inputs\[1\]\.input\.outputIndex: expected an integer/);
  await rejects(() => send(withUtxo((u) => (u.output.amount[0].quantity = 4000000))), /^inputs\[1\]\.output\.amount\[0\]\.quantity: expected a decimal integer string, got a number/);
  await rejects(() => send({ ...sendLovelaceRequest(), myAddress: 7 }), /^myAddress: expected a string, got a number/);
  await rejects(() => unlockFund({ ...unlockFundRequest(), redeemer: { constructor: 0, fields: [] } }), /^redeemer: expected a string holding Plutus data JSON/);
  await rejects(() => unlockFund({ ...unlockFundRequest(), script: { scriptCbor: ALWAYS_SUCCEEDS_V3, languageVersion: 'V4' } }), /^script\.languageVersion: expected "v1", "v2" or "v3", got "V4"/);
});

test('invalid bech32: bad checksum, bad characters, reward address where a payment address belongs', async () => {
  const flipped = BOB.address.slice(0, -1) + (BOB.address.endsWith('q') ? 'p' : 'q');
  await rejects(() => send({ ...sendLovelaceRequest(), recipientAddress: flipped }), /^recipientAddress: invalid bech32 address "addr_test1\w+": /);
  await rejects(() => send({ ...sendLovelaceRequest(), myAddress: 'addr_test1bogus!' }), /^myAddress: invalid bech32 address/);
  await rejects(() => send({ ...sendLovelaceRequest(), recipientAddress: '' }), /^recipientAddress: empty address/);
  await rejects(() => send({ ...sendLovelaceRequest(), recipientAddress: BOB.stakeAddress }), /^recipientAddress: stake_test1\w+ is a reward \(stake\) address, not a payment address/);
  await rejects(() => send(withUtxo((u) => (u.output.address = flipped))), /^inputs\[1\]\.output\.address: invalid bech32 address/);
});

test('bad hex and bad txHash length', async () => {
  await rejects(() => send(withUtxo((u) => (u.input.txHash = 'zz'.repeat(32)))), /^inputs\[1\]\.input\.txHash: not a hex string/);
  await rejects(() => send(withUtxo((u) => (u.input.txHash = 'abc'))), /^inputs\[1\]\.input\.txHash: odd-length hex string/);
  await rejects(() => send(withUtxo((u) => (u.input.txHash = 'ab'.repeat(31)))), /^inputs\[1\]\.input\.txHash: expected 64 hex characters \(32 bytes\), got 62/);
  await rejects(() => send(withUtxo((u) => (u.output.plutusData = 'd87980x'))), /^inputs\[1\]\.output\.plutusData: odd-length hex string/);
  await rejects(() => unlockFund({ ...unlockFundRequest(), script: { scriptCbor: 'xyz1', languageVersion: 'v3' } }), /^script\.scriptCbor: not a hex string/);
  await rejects(() => unlockFund({ ...unlockFundRequest(), script: { scriptCbor: '0102', languageVersion: 'v3' } }), /^script\.scriptCbor: not a CBOR-wrapped Plutus script: /);
  // single-wrapped (the flat program directly inside one CBOR byte string)
  await rejects(() => unlockFund({ ...unlockFundRequest(), script: { scriptCbor: '450101002499', languageVersion: 'v3' } }), /^script\.scriptCbor: expected a double-CBOR-wrapped script/);
});

test('bad datum / redeemer JSON', async () => {
  await rejects(() => lockFund({ ...lockFundRequest(), datum: '{not json' }), /^datum: invalid Plutus data JSON \(detailed schema\): /);
  await rejects(() => lockFund({ ...lockFundRequest(), datum: '{"constructor":0,"fields":[{"bytes":"xyz"}]}' }), /^datum: invalid Plutus data JSON/);
  await rejects(() => lockFund({ ...lockFundRequest(), datum: '{"integer": 5}' }), /^datum: invalid Plutus data JSON/);
  await rejects(() => unlockFund({ ...unlockFundRequest(), redeemer: '' }), /^redeemer: invalid Plutus data JSON/);
});

test('quantities: non-integer, negative, above u64, bad units, duplicates', async () => {
  await rejects(() => send(withUtxo((u) => (u.output.amount[0].quantity = '4e6'))), /^inputs\[1\]\.output\.amount\[0\]\.quantity: not a non-negative decimal integer: "4e6"/);
  await rejects(() => send(withUtxo((u) => (u.output.amount[0].quantity = '-4000000'))), /^inputs\[1\]\.output\.amount\[0\]\.quantity: negative quantity -4000000/);
  await rejects(() => send(withUtxo((u) => (u.output.amount[0].quantity = '18446744073709551616'))), /exceeds the maximum 18446744073709551615/);
  await rejects(() => send(withUtxo((u) => (u.output.amount[1].unit = 'abc'))), /^inputs\[1\]\.output\.amount\[1\]\.unit: expected "lovelace" or a 56-hex policy id/);
  await rejects(() => send(withUtxo((u) => u.output.amount.push({ unit: TOKEN, quantity: '1' }))), /^inputs\[1\]\.output\.amount\[2\]\.unit: unit \w+ already listed at inputs\[1\]\.output\.amount\[1\]/);
  await rejects(() => mintTokens({ ...mintTokensRequest(), toMintAsset: { unit: 'lovelace', quantity: '5' } }), /^toMintAsset\.unit: lovelace cannot be minted/);
});

test('empty inputs, duplicate inputs, insufficient funds (what is missing)', async () => {
  await rejects(() => send(withInputs([])), /^inputs: empty list: at least one UTxO is needed/);
  const u = utxo('dup', 0, ALICE.address, 10_000_000n);
  await rejects(() => send(withInputs([u, u])), /^inputs\[1\]\.input: duplicate of inputs\[0\] \(\w{64}#0\)/);
  await rejects(() => send(withInputs([utxo('poor', 0, ALICE.address, 2_000_000n)])), /^inputs: insufficient funds: still missing 4000000 lovelace after selecting from 1 UTxO\(s\) \(the selection requires the outputs plus a 5000000 lovelace threshold/);
  // the script input spent in the same tx as wallet input
  const req = unlockFundRequest();
  await rejects(() => unlockFund({ ...req, inputs: [utxo('poor', 0, ALICE.address, 1_000_000n)] }), /^inputs: insufficient funds: still missing 4000000 lovelace/);
});

test('UTxO data the evaluator cannot read: a 400 naming the field', async () => {
  const badDatum = unlockFundRequest();
  badDatum.scriptUtxo.output.plutusData = 'ff';
  await rejects(() => unlockFund(badDatum), /^scriptUtxo\.output\.plutusData: not valid Plutus data CBOR: /);
  const badRef = unlockFundRequest() as any;
  badRef.inputs[0].output.scriptRef = 'ff';
  await rejects(() => unlockFund(badRef), /^inputs: script evaluation could not start; the evaluator rejected the transaction or a spent UTxO: .*script ref/);
});

test('CSL failures come back with context, not as raw WASM strings', async () => {
  // Selection is satisfied (6.2 ADA ≥ 1 ADA + 5 ADA threshold), but the change must carry 60
  // policies' tokens, whose min-ADA is far above what is left: CSL cannot balance.
  const tokens = [...Array(60).keys()].map((i) => [txHash(`policy ${i}`).slice(0, 56) + '01', 1n] as [string, bigint]);
  const heavy = withInputs([utxo('token heavy', 0, ALICE.address, 6_200_000n, tokens)]);
  await rejects(() => send(heavy), /^inputs: insufficient funds for the outputs, fee, deposits and change \(CSL: Not enough ADA leftover/);
  const poor = { ...collateralReturnRequest(), collateral: utxo('tiny', 0, ALICE.address, 5_500_000n) };
  await rejects(() => collateralReturn(poor), /^collateral: cannot set total collateral 5000000 with a collateral return to myAddress: Not enough coin/);
});

test('last line of defence: WASM throws (strings, traps) become 400s with context; JS bugs stay errors', async () => {
  await rejects(() => defineBuilder('x_builder', async () => { throw 'Deserialization failed in Foo'; })({}), /^transaction: x_builder could not be built from this request \(CSL: Deserialization failed in Foo\)/);
  await rejects(() => defineBuilder('x_builder', async () => { throw new WebAssembly.RuntimeError('unreachable'); })({}), /^transaction: x_builder could not be built from this request \(CSL: WASM trap \(unreachable\)\)/);
  try {
    await defineBuilder('x_builder', async () => { throw new TypeError('bug'); })({});
    assert.unreachable();
  } catch (e) {
    assert.instance(e, TypeError);
  }
});

test('declared languageVersion differing from the builder’s is explained when the hash does not match', async () => {
  const req = { ...unlockFundRequest(), script: { scriptCbor: ALWAYS_SUCCEEDS_V3, languageVersion: 'v2' } };
  await rejects(() => unlockFund(req), /\(unlock_fund attaches scripts as Plutus V3; languageVersion "v2" is not used\)$/);
});

// Structural fuzzing: replace each field of each request with values of every wrong kind.
const builders = BUILDER_CASES;
const REPLACEMENTS: unknown[] = [undefined, null, -1, 'x', [], {}, true, '0'.repeat(64)];

function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [prefix];
  const keys = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return [prefix, ...keys.flatMap((k) => paths((value as any)[k], [...prefix, k]))].filter((p) => p.length > 0);
}

function replaced(body: object, path: (string | number)[], replacement: unknown): object {
  const copy = structuredClone(body);
  let node: any = copy;
  for (const k of path.slice(0, -1)) node = node[k];
  if (replacement === undefined) delete node[path.at(-1)!];
  else node[path.at(-1)!] = replacement;
  return copy;
}

for (const [name, plugin, request] of builders) {
  test(`${name}: no malformed field escapes as anything but a BuilderInputError`, async () => {
    let rejected = 0;
    for (const path of paths(request())) {
      for (const replacement of REPLACEMENTS) {
        try {
          await plugin(replaced(request(), path, replacement));
        } catch (e) {
          if (!(e instanceof BuilderInputError)) assert.unreachable(`${path.join('.')} = ${JSON.stringify(replacement)}: ${String(e)}`);
          rejected++;
        }
      }
    }
    assert.ok(rejected > 50, `only ${rejected} rejections`);
  });
}

test.run();
