// Realistic test vectors for the Cardano builders: CIP-1852 wallets derived with CSL from fixed
// entropy (testnet addresses), UTxOs with and without tokens, and Plutus scripts.
import { createHash } from 'node:crypto';
import * as CSL from '../../../src/builders/cardano/csl.js';

// ---------------------------------------------------------------------------------------------
// Wallets

export interface TestWallet {
  /** Base address addr_test1q… (payment key + stake key). */
  address: string;
  /** Enterprise address addr_test1v… (payment key only). */
  enterprise: string;
  paymentKeyHash: string;
  /** Reward address stake_test1u…. */
  stakeAddress: string;
  stakeKeyHash: string;
}

const harden = (n: number) => 0x8000_0000 + n;

/** Wallet number `n`: keys m/1852'/1815'/0'/0/0 and /2/0 from a fixed 16-byte entropy. */
export function wallet(n: number): TestWallet {
  const entropy = createHash('sha256').update(`test wallet ${n}`).digest().subarray(0, 16);
  const root = CSL.Bip32PrivateKey.from_bip39_entropy(entropy, Buffer.alloc(0));
  const account = root.derive(harden(1852)).derive(harden(1815)).derive(harden(0));
  const payment = account.derive(0).derive(0).to_public().to_raw_key().hash();
  const stake = account.derive(2).derive(0).to_public().to_raw_key().hash();
  const paymentCred = CSL.Credential.from_keyhash(payment);
  const stakeCred = CSL.Credential.from_keyhash(stake);
  return {
    address: CSL.BaseAddress.new(0, paymentCred, stakeCred).to_address().to_bech32(),
    enterprise: CSL.EnterpriseAddress.new(0, paymentCred).to_address().to_bech32(),
    paymentKeyHash: payment.to_hex(),
    stakeAddress: CSL.RewardAddress.new(0, stakeCred).to_address().to_bech32(),
    stakeKeyHash: stake.to_hex(),
  };
}

export const ALICE = wallet(1);
export const BOB = wallet(2);

// ---------------------------------------------------------------------------------------------
// UTxOs (the request's JSON shape)

export interface AssetJson {
  unit: string;
  quantity: string;
}

export interface UtxoJson {
  input: { txHash: string; outputIndex: number };
  output: { address: string; amount: AssetJson[]; dataHash?: string | null; plutusData?: string | null; scriptRef?: string | null; scriptHash?: string | null };
}

export const txHash = (seed: string) => createHash('sha256').update(seed).digest('hex');

export function utxo(seed: string, outputIndex: number, address: string, lovelace: bigint | string, tokens: [string, bigint | string][] = []): UtxoJson {
  return {
    input: { txHash: txHash(seed), outputIndex },
    output: {
      address,
      amount: [{ unit: 'lovelace', quantity: String(lovelace) }, ...tokens.map(([unit, q]) => ({ unit, quantity: String(q) }))],
    },
  };
}

export const ada = (n: number) => BigInt(Math.round(n * 1_000_000));

/** A token held by the wallets (policy of an arbitrary native script, name "TOKEN"). */
export const TOKEN_POLICY = createHash('sha256').update('token policy').digest('hex').slice(0, 56);
export const TOKEN = TOKEN_POLICY + Buffer.from('TOKEN').toString('hex');
export const OTHER_TOKEN = TOKEN_POLICY + Buffer.from('OTHER').toString('hex');

// ---------------------------------------------------------------------------------------------
// Plutus scripts, double-CBOR-wrapped as the request expects (`scriptCbor`)

/** (program 1.1.0 (lam ctx (con unit ()))) — Plutus V3 always succeeds (flat 0101002499). */
export const ALWAYS_SUCCEEDS_V3 = '46450101002499';

/**
 * Aiken hello_world (Plutus V3, Aiken v1.1.0): spends when the redeemer's msg is
 * "Hello, World!" and the datum's owner is among the required signers. compiledCode of
 * `hello_world.hello_world.spend` in MeshJS/mesh,
 * packages/mesh-contract/src/hello-world/aiken-workspace-v2/plutus.json (commit 9e5e07e),
 * hash 7aef0f7e3fa04defd42c73815891623f7b56d4b98c47610dd59395fe; wrapped once more here.
 */
export const HELLO_WORLD_V3 =
  '59010b' +
  '59010801010032323232323225333002323232323253330073370e900118041baa0011323232533300a3370e900018059baa00513232533300f30110021533300c3370e900018069baa00313232533300e3371e6eb8c008c040dd5004a450d48656c6c6f2c20576f726c642100100114a06644646600200200644a66602800229404c94ccc048cdc79bae301600200414a2266006006002602c0026eb0c044c048c048c048c048c048c048c048c048c03cdd50051bae3001300f37546022601e6ea80108c0440045858dd7180780098061baa00516300d300e002300c001300937540022c6014601600460120026012004600e00260086ea8004526136565734aae7555cf2ab9f5742ae89';
export const HELLO_WORLD_HASH = '7aef0f7e3fa04defd42c73815891623f7b56d4b98c47610dd59395fe';

/**
 * (program 1.1.0 (lam ctx [(lam _ (error)) [(force (builtin trace)) (con string "always fails: redeemer rejected") (con unit ())]]))
 * — Plutus V3, logs a trace then fails. Hand-assembled flat, checked with whisky-js's UPLC decoder.
 */
export const TRACE_FAILS_V3 = '582f582d010100232633573892011f616c77617973206661696c733a2072656465656d65722072656a6563746564004981';
export const TRACE_MESSAGE = 'always fails: redeemer rejected';

/** (program 1.0.0 (lam a (lam b (lam c (con unit ()))))) — Plutus V2, succeeds as spend (3 args) and mint (2 args). */
export const ALWAYS_SUCCEEDS_V2 = '4746010000222499';
/** Same with result (con integer 1) / (con integer 2): distinct V2 policies that always succeed. */
export const ALWAYS_SUCCEEDS_V2_A = '484701000022248009';
export const ALWAYS_SUCCEEDS_V2_B = '484701000022248011';

export function scriptHash(cbor: string, version: 'v2' | 'v3'): string {
  const language = version === 'v2' ? CSL.Language.new_plutus_v2() : CSL.Language.new_plutus_v3();
  return CSL.PlutusScript.from_hex_with_version(cbor, language).hash().to_hex();
}

export function scriptAddress(hash: string): string {
  return CSL.EnterpriseAddress.new(0, CSL.Credential.from_scripthash(CSL.ScriptHash.from_hex(hash))).to_address().to_bech32();
}

// ---------------------------------------------------------------------------------------------
// Plutus data JSON (CSL detailed schema) and its CBOR

export const ownerDatum = (keyHash: string) => JSON.stringify({ constructor: 0, fields: [{ bytes: keyHash }] });
export const messageRedeemer = (msg: string) => JSON.stringify({ constructor: 0, fields: [{ bytes: Buffer.from(msg).toString('hex') }] });
export const UNIT_DATA = '{"constructor":0,"fields":[]}';

export const dataCbor = (json: string) => CSL.PlutusData.from_json(json, CSL.PlutusDatumSchema.DetailedSchema).to_hex();

/** A UTxO locked at `address` with an inline datum. */
export function scriptUtxo(seed: string, address: string, lovelace: bigint, datumJson: string): UtxoJson {
  const u = utxo(seed, 0, address, lovelace);
  u.output.plutusData = dataCbor(datumJson);
  return u;
}

// ---------------------------------------------------------------------------------------------
// Ready-made requests

export function walletInputs(owner: TestWallet = ALICE): UtxoJson[] {
  return [
    utxo('wallet a', 0, owner.address, ada(3)),
    utxo('wallet b', 1, owner.address, ada(4), [[TOKEN, 500n]]),
    utxo('wallet c', 2, owner.address, ada(50)),
    utxo('wallet d', 0, owner.address, ada(20), [[TOKEN, 10n], [OTHER_TOKEN, 7n]]),
  ];
}

export const collateralUtxo = (owner: TestWallet = ALICE) => utxo('collateral', 3, owner.address, ada(10));

export function sendLovelaceRequest() {
  return { recipientAddress: BOB.address, myAddress: ALICE.address, inputs: walletInputs() };
}

export function lockFundRequest() {
  return { scriptAddress: scriptAddress(HELLO_WORLD_HASH), datum: ownerDatum(ALICE.paymentKeyHash), myAddress: ALICE.address, inputs: walletInputs() };
}

export function unlockFundRequest() {
  const locked = scriptUtxo('locked at hello world', scriptAddress(HELLO_WORLD_HASH), ada(12), ownerDatum(ALICE.paymentKeyHash));
  return {
    scriptUtxo: locked,
    redeemer: messageRedeemer('Hello, World!'),
    script: { scriptCbor: HELLO_WORLD_V3, languageVersion: 'v3' },
    myAddress: ALICE.address,
    inputs: walletInputs(),
    collateral: collateralUtxo(),
  };
}

export function mintTokensRequest(quantity: bigint | string = 1000n) {
  const policy = scriptHash(ALWAYS_SUCCEEDS_V3, 'v3');
  return {
    toMintAsset: { unit: policy + Buffer.from('MESH').toString('hex'), quantity: String(quantity) },
    redeemer: UNIT_DATA,
    script: { scriptCbor: ALWAYS_SUCCEEDS_V3, languageVersion: 'v3' },
    myAddress: ALICE.address,
    inputs: walletInputs(),
    collateral: collateralUtxo(),
  };
}

export function complexTransactionRequest() {
  const spendHash = scriptHash(ALWAYS_SUCCEEDS_V2, 'v2');
  const mint = (script: string, name: string, quantity: bigint) => ({
    toMintAsset: { unit: scriptHash(script, 'v2') + Buffer.from(name).toString('hex'), quantity: String(quantity) },
    redeemer: UNIT_DATA,
    script: { scriptCbor: script, languageVersion: 'v2' },
  });
  return {
    toUnlock: {
      scriptUtxo: scriptUtxo('locked at v2', scriptAddress(spendHash), ada(7), UNIT_DATA),
      redeemer: '{"int": 42}',
      script: { scriptCbor: ALWAYS_SUCCEEDS_V2, languageVersion: 'v2' },
    },
    toMint1: mint(ALWAYS_SUCCEEDS_V2_A, 'ONE', 1n),
    toMint2: mint(ALWAYS_SUCCEEDS_V2_B, 'TWO', 2n),
    myAddress: ALICE.address,
    inputs: walletInputs(),
    collateral: collateralUtxo(),
  };
}

export function delegateStakeRequest(poolId = POOL_HEX) {
  return { stakeKeyHash: ALICE.stakeAddress, poolId, myAddress: ALICE.address, inputs: walletInputs() };
}

export function collateralReturnRequest() {
  return { myAddress: ALICE.address, inputs: walletInputs(), collateral: collateralUtxo() };
}

export const POOL_HEX = createHash('sha256').update('a stake pool').digest('hex').slice(0, 56);
export const POOL_BECH32 = CSL.Ed25519KeyHash.from_hex(POOL_HEX).to_bech32('pool');
