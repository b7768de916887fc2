// Address, credential and pool-id parsing. CSL checks bech32 checksums and payloads; we add
// which kind of address each field may hold and say so when it does not.
import * as CSL from './csl.js';
import { type Arena, withArena } from './arena.js';
import { attempt, inputError, wasmMessage } from './errors.js';

/** A bech32 Shelley address that can hold funds (not a reward/stake address). */
export function parseAddress(a: Arena, text: string, path: string): CSL.Address {
  if (text === '') throw inputError(path, 'empty address');
  const address = a.own(attempt(path, `invalid bech32 address ${JSON.stringify(abbreviate(text))}`, () => CSL.Address.from_bech32(text)));
  if (a.ownOpt(CSL.RewardAddress.from_address(address)) !== undefined) {
    throw inputError(path, `${abbreviate(text)} is a reward (stake) address, not a payment address`);
  }
  return address;
}

/**
 * An address a transaction pays to: bech32, or Byron base58 as the reference also accepts for
 * outputs and change.
 */
export function parseDestination(a: Arena, text: string, path: string): CSL.Address {
  try {
    return parseAddress(a, text, path);
  } catch (bech32Error) {
    if (!/^[1-9A-HJ-NP-Za-km-z]+$/.test(text) || !CSL.ByronAddress.is_valid(text)) throw bech32Error;
    const byron = a.own(CSL.ByronAddress.from_base58(text));
    return a.own(byron.to_address());
  }
}

export function checkAddress(text: string, path: string): string {
  withArena((a) => parseAddress(a, text, path));
  return text;
}

export function checkDestination(text: string, path: string): string {
  withArena((a) => parseDestination(a, text, path));
  return text;
}

/** Payment key hash (hex) of a Shelley address; the field must not be a script or Byron address. */
export function paymentKeyHash(text: string, path: string, purpose: string): string {
  return withArena((a) => {
    const address = parseDestination(a, text, path);
    const credential = a.ownOpt(address.payment_cred());
    if (credential === undefined) throw inputError(path, `a Byron address has no payment key hash; ${purpose}`);
    const keyHash = a.ownOpt(credential.to_keyhash());
    if (keyHash === undefined) {
      throw inputError(path, `payment credential is a script hash, but ${purpose} needs a key hash`);
    }
    return keyHash.to_hex();
  });
}

/** Script hash (hex) of an address whose payment credential is a script, else undefined. */
export function paymentScriptHash(text: string): string | undefined {
  return withArena((a) => {
    const address = a.own(CSL.Address.from_bech32(text));
    const credential = a.ownOpt(address.payment_cred());
    return a.ownOpt(credential?.to_scripthash())?.to_hex();
  });
}

/** The stake credential of a reward address (stake1… / stake_test1…). */
export function stakeCredential(a: Arena, text: string, path: string): CSL.Credential {
  const address = a.own(attempt(path, `invalid bech32 stake address ${JSON.stringify(abbreviate(text))}`, () => CSL.Address.from_bech32(text)));
  const reward = a.ownOpt(CSL.RewardAddress.from_address(address));
  if (reward === undefined) throw inputError(path, `${abbreviate(text)} is not a reward (stake) address`);
  return a.own(reward.payment_cred());
}

export function checkStakeKeyAddress(text: string, path: string): string {
  return withArena((a) => {
    const credential = stakeCredential(a, text, path);
    if (credential.has_script_hash()) {
      throw inputError(path, 'stake credential is a script hash; delegating it needs a script witness, only key-hash stake credentials are supported');
    }
    return text;
  });
}

/** A pool id as 56-hex key hash or bech32 `pool1…`; returned as lowercase hex. */
export function poolKeyHash(text: string, path: string): string {
  if (/^[0-9a-fA-F]{56}$/.test(text)) return text.toLowerCase();
  if (/^pool1[02-9ac-hj-np-z]+$/i.test(text)) {
    return withArena((a) => {
      try {
        return a.own(CSL.Ed25519KeyHash.from_bech32(text.toLowerCase())).to_hex();
      } catch (e) {
        throw inputError(path, `invalid bech32 pool id: ${wasmMessage(e)}`);
      }
    });
  }
  throw inputError(path, `expected a pool id as 56 hex characters or bech32 pool1…, got ${JSON.stringify(abbreviate(text))}`);
}

function abbreviate(text: string): string {
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
