import { suite } from '../../support/uvu.js';
import * as assert from '../../support/assert.js';
import * as CSL from '../../../src/builders/cardano/csl.js';
import delegateStake from '../../../src/builders/cardano/delegate-stake.js';
import { ALICE, ALWAYS_SUCCEEDS_V3, POOL_BECH32, POOL_HEX, delegateStakeRequest, scriptHash } from './fixtures.js';
import { rejects, verifyTx } from './verify.js';

const test = suite('delegate_stake');

const build = async (body: unknown) => ((await delegateStake(body)) as { txHex: string }).txHex;

test('registers the stake key (legacy certificate) and delegates to the pool; deposit = key deposit', async () => {
  const req = delegateStakeRequest();
  // signers: payment key (inputs) + stake key (delegation certificate).
  const d = verifyTx(await build(req), { utxos: req.inputs, signers: 2, deposit: 2_000_000n });
  const certs = d.body.certs()!;
  assert.is(certs.len(), 2);
  const registration = certs.get(0).as_stake_registration()!;
  assert.ok(registration, 'first: stake registration');
  assert.is(certs.get(0).kind(), CSL.CertificateKind.StakeRegistration);
  assert.is(registration.coin(), undefined, 'legacy form: no explicit deposit in the certificate');
  assert.is(registration.stake_credential().to_keyhash()!.to_hex(), ALICE.stakeKeyHash);
  const delegation = certs.get(1).as_stake_delegation()!;
  assert.is(delegation.pool_keyhash().to_hex(), POOL_HEX);
  assert.is(delegation.stake_credential().to_keyhash()!.to_hex(), ALICE.stakeKeyHash);
  assert.is(d.outputs.length, 1);
  assert.is(d.outputs[0]!.address, ALICE.address);
  assert.is(BigInt(CSL.get_deposit(d.body, CSL.BigNum.from_str('500000000'), CSL.BigNum.from_str('2000000')).to_str()), 2_000_000n);
});

test('poolId as bech32 pool1… gives the same transaction as the 56-hex form', async () => {
  assert.match(POOL_BECH32, /^pool1/);
  assert.is(await build(delegateStakeRequest(POOL_BECH32)), await build(delegateStakeRequest(POOL_HEX)));
  assert.is(await build(delegateStakeRequest(POOL_HEX.toUpperCase())), await build(delegateStakeRequest(POOL_HEX)));
});

test('bad pool ids and stake addresses are 400s naming the field', async () => {
  await rejects(() => build(delegateStakeRequest('pool1xyz')), /^poolId: invalid bech32 pool id/);
  await rejects(() => build(delegateStakeRequest('abc')), /^poolId: expected a pool id as 56 hex characters or bech32 pool1…/);
  await rejects(() => build({ ...delegateStakeRequest(), stakeKeyHash: ALICE.address }), /^stakeKeyHash: addr_test1\w+ is not a reward \(stake\) address/);
  const scriptStake = CSL.RewardAddress.new(0, CSL.Credential.from_scripthash(CSL.ScriptHash.from_hex(scriptHash(ALWAYS_SUCCEEDS_V3, 'v3')))).to_address().to_bech32();
  await rejects(() => build({ ...delegateStakeRequest(), stakeKeyHash: scriptStake }), /^stakeKeyHash: stake credential is a script hash/);
});

test.run();
