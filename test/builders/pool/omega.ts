// A Plutus V3 script that never terminates: (program 1.1.0 (lam ctx [(lam x [x x]) (lam x [x x])]))
// — the omega combinator under the context argument. Hand-assembled flat (version 1.1.0; lam 0010,
// apply 0011, var 0000 + de Bruijn index 1; padding 00000001), double-CBOR-wrapped; decoded with
// whisky-js's UPLC printer to check.
import { ALICE, ada, collateralUtxo, mintTokensRequest, scriptAddress, scriptHash, scriptUtxo, UNIT_DATA, walletInputs } from '../cardano/fixtures.js';

export const OMEGA_V3 = '4e4d01010023230010012300100101';

/** mint_tokens whose policy is the omega script (about 2.1 KB of JSON, as in issue 12). */
export function omegaMintRequest() {
  const req = mintTokensRequest();
  req.script.scriptCbor = OMEGA_V3;
  req.toMintAsset.unit = scriptHash(OMEGA_V3, 'v3') + Buffer.from('MESH').toString('hex');
  return req;
}

/** unlock_fund of a UTxO locked by the omega script. */
export function omegaUnlockRequest() {
  return {
    scriptUtxo: scriptUtxo('locked at omega', scriptAddress(scriptHash(OMEGA_V3, 'v3')), ada(12), UNIT_DATA),
    redeemer: UNIT_DATA,
    script: { scriptCbor: OMEGA_V3, languageVersion: 'v3' },
    myAddress: ALICE.address,
    inputs: walletInputs(),
    collateral: collateralUtxo(),
  };
}
