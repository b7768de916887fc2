// Input limits live in the transactions catalogue's body schemas, so the gateway refuses an
// oversized body (400 naming the field and the limit) before any builder work. Checked the way
// the gateway checks bodies: ajv over the endpoint body with the service schemas as $defs.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { Ajv, type ErrorObject } from 'ajv';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { timed } from '../support/timing.js';
import { ALICE, BOB, TOKEN_POLICY, ada, mintTokensRequest, sendLovelaceRequest, unlockFundRequest, utxo } from './cardano/fixtures.js';

const test = suite('tx-examples body limits');

const { catalogue } = loadCatalogue();
const service = catalogue.services.find((s) => s.id === 'tx-examples')!;
const ajv = new Ajv({ allErrors: false, strict: false, allowUnionTypes: true });

function validator(path: string) {
  const endpoint = service.endpoints.find((e) => e.path === path)!;
  const body = endpoint.body as Record<string, unknown>;
  return ajv.compile({ ...body, $defs: { ...service.schemas, ...(body.$defs as object | undefined) } });
}

function firstError(path: string, body: unknown): ErrorObject | null {
  const validate = validator(path);
  return validate(body) ? null : validate.errors![0]!;
}

const assets = (n: number) => Array.from({ length: n }, (_, i): [string, bigint] => [TOKEN_POLICY + i.toString(16).padStart(8, '0'), 1n]);

test('the 11 250-asset send_lovelace of issue 12: refused on the amount list, in < 100 ms', async () => {
  const body = { recipientAddress: BOB.address, myAddress: ALICE.address, inputs: [utxo('big', 0, ALICE.address, ada(100), assets(11_250))] };
  assert.ok(JSON.stringify(body).length > 900_000, 'as large as the reported body');
  const validate = validator('/send_lovelace');
  // Reference: one pass over the same body (a JSON round trip), timed here, now.
  const pass = await timed(() => JSON.parse(JSON.stringify(body)));
  const started = performance.now();
  const ok = validate(body);
  const ms = performance.now() - started;
  assert.not.ok(ok);
  assert.equal([validate.errors![0]!.instancePath, validate.errors![0]!.keyword, validate.errors![0]!.params], ['/inputs/0/output/amount', 'maxItems', { limit: 256 }]);
  assert.ok(ms < pass.ms + 100, `validation took ${ms} ms; one pass over the body ${pass.ms.toFixed(0)} ms`);
});

test('256 assets per UTxO are accepted; 257 are not', () => {
  const at = (n: number) => ({ ...sendLovelaceRequest(), inputs: [utxo('big', 0, ALICE.address, ada(100), assets(n - 1))] });
  assert.is(firstError('/send_lovelace', at(256)), null);
  assert.is(firstError('/send_lovelace', at(257))?.keyword, 'maxItems');
});

test('more than 400 UTxOs offered: refused on inputs', () => {
  const inputs = Array.from({ length: 401 }, (_, i) => utxo(`u${i}`, 0, ALICE.address, ada(2)));
  const e = firstError('/send_lovelace', { ...sendLovelaceRequest(), inputs });
  assert.equal([e?.instancePath, e?.keyword, e?.params], ['/inputs', 'maxItems', { limit: 400 }]);
});

test('scripts, inline datums and Plutus-data JSON are bounded by size', () => {
  const bigScript = unlockFundRequest();
  bigScript.script.scriptCbor = 'ab'.repeat(16_385);
  assert.equal([firstError('/unlock_fund', bigScript)?.instancePath, firstError('/unlock_fund', bigScript)?.params], ['/script/scriptCbor', { limit: 32768 }]);

  const bigDatum = unlockFundRequest();
  bigDatum.scriptUtxo.output.plutusData = 'ab'.repeat(16_385);
  assert.is(firstError('/unlock_fund', bigDatum)?.instancePath, '/scriptUtxo/output/plutusData');

  const bigRedeemer = { ...unlockFundRequest(), redeemer: JSON.stringify({ bytes: 'ab'.repeat(40_000) }) };
  assert.equal([firstError('/unlock_fund', bigRedeemer)?.instancePath, firstError('/unlock_fund', bigRedeemer)?.keyword], ['/redeemer', 'maxLength']);
});

test('mint_tokens accepts a negative quantity (a burn); other amounts stay unsigned', () => {
  const burn = mintTokensRequest(-5n);
  assert.is(firstError('/mint_tokens', burn), null);
  const negativeInput = mintTokensRequest();
  negativeInput.inputs[0]!.output.amount[0]!.quantity = '-5';
  assert.is(firstError('/mint_tokens', negativeInput)?.instancePath, '/inputs/0/output/amount/0/quantity');
});

test('today\'s valid requests still pass', () => {
  assert.is(firstError('/send_lovelace', sendLovelaceRequest()), null);
  assert.is(firstError('/unlock_fund', unlockFundRequest()), null);
  assert.is(firstError('/mint_tokens', mintTokensRequest()), null);
});

test.run();
