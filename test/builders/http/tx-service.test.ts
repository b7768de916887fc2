// The transaction service over HTTP: the four seed endpoints answer {"txHex"}; bad input is a
// 400 {"error"} naming the field; a YAML entry alone exposes another builder.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../../support/uvu.js';
import * as assert from '../../support/assert.js';
import type { RunningGateway } from '../../../src/server.js';
import { gatewayAt } from '../../support/gateway.js';
import { ROOT, startGatewayProcess } from '../../support/processes.js';
import {
  ALICE, POOL_BECH32, POOL_HEX, delegateStakeRequest, lockFundRequest, mintTokensRequest, sendLovelaceRequest, unlockFundRequest,
} from '../cardano/fixtures.js';
import { verifyTx } from '../cardano/verify.js';
import { tempDir } from '../../support/temp.js';

const test = suite('transaction service over HTTP');
let gw: RunningGateway;

const post = async (base: string, path: string, body: unknown, headers: Record<string, string> = { 'Content-Type': 'application/json' }) => {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, headers: res.headers, body: await res.json() as { txHex?: string; error?: string } };
};

test.before(async () => { gw = await gatewayAt(undefined, 'http://127.0.0.1:9'); });
test.after(async () => { await gw.close(); });

test('POST /send_lovelace → 200 {"txHex"}: a balanced transaction paying the recipient 1 000 000', async () => {
  const req = sendLovelaceRequest();
  const r = await post(gw.url, '/send_lovelace', req);
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal(Object.keys(r.body), ['txHex']);
  const d = verifyTx(r.body.txHex!, { utxos: req.inputs, signers: 1 });
  assert.is(d.outputs[0]!.coin, 1_000_000n);
  assert.is(r.headers.get('x-gateway-release'), null, 'the transaction service is not versioned');
  assert.is(r.headers.get('content-type'), 'application/json; charset=utf-8');
});

test('POST /lock_fund, /unlock_fund, /mint_tokens → 200 with verifiable transactions', async () => {
  const lock = lockFundRequest();
  const l = await post(gw.url, '/lock_fund', lock);
  assert.is(l.status, 200, JSON.stringify(l.body));
  verifyTx(l.body.txHex!, { utxos: lock.inputs, signers: 1 });
  const unlock = unlockFundRequest();
  const u = await post(gw.url, '/unlock_fund', unlock);
  assert.is(u.status, 200, JSON.stringify(u.body));
  verifyTx(u.body.txHex!, { utxos: [...unlock.inputs, unlock.scriptUtxo, unlock.collateral], signers: 1 });
  const mint = mintTokensRequest();
  const m = await post(gw.url, '/mint_tokens', mint);
  assert.is(m.status, 200, JSON.stringify(m.body));
  verifyTx(m.body.txHex!, { utxos: [...mint.inputs, mint.collateral], signers: 1 });
});

test('bad input → 400 {"error"} naming the field; never a 500; the server keeps serving', async () => {
  const req = sendLovelaceRequest();
  const cases: [unknown, RegExp][] = [
    ['{not json', /invalid JSON body/],
    [{ ...req, inputs: [] }, /field 'inputs'/],
    [{ ...req, myAddress: undefined }, /field 'myAddress' is required/],
    [{ ...req, recipientAddress: 42 }, /field 'recipientAddress' must be string/],
    [{ ...req, inputs: [{ ...req.inputs[0], input: { ...req.inputs[0].input, txHash: 'abc' } }] }, /field 'inputs\[0\]\.input\.txHash' must match pattern/],
    [{ ...req, recipientAddress: 'addr_test1notanaddress' }, /recipientAddress/],
    [{ ...req, inputs: [{ ...req.inputs[0], output: { ...req.inputs[0].output, amount: [{ unit: 'lovelace', quantity: '1000' }] } }] }, /insufficient|Insufficient/],
  ];
  for (const [body, pattern] of cases) {
    const r = await post(gw.url, '/send_lovelace', body);
    assert.is(r.status, 400, `${JSON.stringify(body).slice(0, 80)} → ${r.status} ${JSON.stringify(r.body)}`);
    assert.equal(Object.keys(r.body), ['error']);
    assert.match(r.body.error!, pattern);
  }
  const wrongType = await post(gw.url, '/send_lovelace', 'recipientAddress=x', { 'Content-Type': 'application/x-www-form-urlencoded' });
  assert.is(wrongType.status, 415);
  const again = await post(gw.url, '/send_lovelace', req);
  assert.is(again.status, 200);
});

test('builders without an endpoint in the catalogue are not exposed', async () => {
  const r = await post(gw.url, '/delegate_stake', delegateStakeRequest());
  assert.is(r.status, 404);
});

test('CORS is on for the transaction service', async () => {
  const pre = await fetch(`${gw.url}/send_lovelace`, { method: 'OPTIONS', headers: { Origin: 'http://localhost:3000', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' } });
  assert.is(pre.status, 204);
  assert.ok(pre.headers.get('access-control-allow-methods')?.includes('POST'));
});

test('a YAML entry alone exposes POST /delegate_stake (catalogue copy, --catalogue, no code change)', async () => {
  const dir = tempDir('catalogue-copy-');
  cpSync(join(ROOT, 'catalogue'), dir, { recursive: true });
  const file = join(dir, 'tx-examples/endpoints/transactions.yaml');
  writeFileSync(file, `${readFileSync(file, 'utf8')}
  - method: POST
    path: /delegate_stake
    summary: Register a stake key and delegate it to a pool.
    builder: delegate_stake
    body:
      type: object
      required: [stakeKeyHash, poolId, myAddress, inputs]
      properties:
        stakeKeyHash: { type: string }
        poolId: { type: string }
        myAddress: { $ref: '#/$defs/Address' }
        inputs: { $ref: '#/$defs/Inputs' }
`);
  const proc = await startGatewayProcess(['--catalogue', dir]);
  try {
    for (const pool of [POOL_HEX, POOL_BECH32]) {
      const req = delegateStakeRequest(pool);
      const r = await post(proc.url, '/delegate_stake', req);
      assert.is(r.status, 200, JSON.stringify(r.body));
      const d = verifyTx(r.body.txHex!, { utxos: req.inputs, signers: 2, deposit: 2_000_000n });
      assert.is(d.body.certs()!.get(1).as_stake_delegation()!.pool_keyhash().to_hex(), POOL_HEX);
      assert.is(d.outputs.at(-1)!.address, ALICE.address);
    }
    const bad = await post(proc.url, '/delegate_stake', { ...delegateStakeRequest(), poolId: undefined });
    assert.is(bad.status, 400);
    assert.match(bad.body.error!, /poolId/);
  } finally { await proc.stop(); }
});

test.run();
