// Build the signer the settings describe: HMAC from the secret, or RSA / Ed25519 from a PEM file
// (PKCS#8 or PKCS#1, unencrypted or encrypted with a passphrase). Errors name the setting, never
// its value, and never quote the file.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { UsageError } from '../../usage-error.js';
import type { SigningSettings } from './settings.js';
import { hmacSigner, keySigner, type Signer } from './signers.js';

export function loadSigner(s: SigningSettings): Signer {
  if (s.apiSecret) return hmacSigner(s.apiSecret.reveal());
  return keySigner(loadPrivateKey(s));
}

export function loadPrivateKey(s: Pick<SigningSettings, 'privateKeyFile' | 'privateKeyPassphrase' | 'names'>): KeyObject {
  const file = s.names.privateKeyFile;
  const pass = s.names.privateKeyPassphrase;
  let pem: Buffer;
  try {
    pem = readFileSync(s.privateKeyFile!);
  } catch (e) {
    throw new UsageError(`${file}: cannot read the key file (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem', passphrase: s.privateKeyPassphrase?.reveal() });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    const text = pem.toString('latin1');
    const encrypted = /ENCRYPTED/.test(text);
    if (code === 'ERR_MISSING_PASSPHRASE' || (encrypted && !s.privateKeyPassphrase)) throw new UsageError(`${file} holds an encrypted private key: set ${pass}`);
    if (encrypted) throw new UsageError(`${file}: cannot decrypt the private key with ${pass} (wrong passphrase?)`);
    if (/BEGIN PUBLIC KEY/.test(text) && !/PRIVATE KEY/.test(text)) throw new UsageError(`${file} holds a public key; it must name the private key (the public key is what you register at the exchange)`);
    throw new UsageError(`${file}: not a PEM private key${code ? ` (${code})` : ''}`);
  } finally {
    pem.fill(0);
  }
  const type = key.asymmetricKeyType;
  if (type !== 'rsa' && type !== 'ed25519') {
    throw new UsageError(`${file}: the key is ${type ?? 'of an unknown type'}; the exchange accepts RSA (PKCS#1 v1.5) and Ed25519 keys`);
  }
  return key;
}
