// The same three signers on node-forge (pure JavaScript). Not on the request path: bench/signing.ts
// compares them with node:crypto in one run, and the tests use them as an independent second
// implementation of each scheme.
import { createPublicKey, type KeyObject } from 'node:crypto';
import forge from 'node-forge';
import { urlBase64, type Signer } from './signers.js';

export function forgeHmacSigner(secret: string): Signer {
  const key = forge.util.encodeUtf8(secret);
  return {
    algorithm: 'HMAC',
    sign(payload) {
      const hmac = forge.hmac.create();
      hmac.start('sha256', key);
      hmac.update(binary(payload));
      return hmac.digest().toHex();
    },
  };
}

/** RSA or Ed25519 from a node KeyObject (forge has no Ed25519 PEM reader, so the seed goes via JWK). */
export function forgeKeySigner(key: KeyObject): Signer {
  if (key.asymmetricKeyType === 'rsa') {
    const pem = key.export({ type: 'pkcs8', format: 'pem' }).toString();
    const priv = forge.pki.privateKeyFromPem(pem) as forge.pki.rsa.PrivateKey;
    return {
      algorithm: 'RSA',
      sign(payload) {
        const md = forge.md.sha256.create();
        md.update(binary(payload));
        return urlBase64(Buffer.from(priv.sign(md), 'binary'));
      },
    };
  }
  if (key.asymmetricKeyType === 'ed25519') {
    const seed = Buffer.from(key.export({ format: 'jwk' }).d!, 'base64url');
    const { privateKey } = forge.pki.ed25519.generateKeyPair({ seed });
    return {
      algorithm: 'ED25519',
      sign: (payload) => urlBase64(Buffer.from(forge.pki.ed25519.sign({ message: toBuffer(payload), privateKey }))),
    };
  }
  throw new Error(`unsupported key type ${key.asymmetricKeyType}`);
}

/** Verify a signature produced by any signer with node-forge (tests: a second implementation). */
export function forgeVerify(publicPem: string, payload: string | Buffer, urlSignature: string): boolean {
  const sig = Buffer.from(decodeURIComponent(urlSignature), 'base64');
  if (createPublicKey(publicPem).asymmetricKeyType === 'ed25519') {
    const der = forge.asn1.fromDer(forge.util.decode64(publicPem.replace(/-----[^-]+-----|\s/g, '')));
    const publicKey = forge.pki.ed25519.publicKeyFromAsn1(der);
    return forge.pki.ed25519.verify({ message: toBuffer(payload), signature: sig, publicKey });
  }
  const key = forge.pki.publicKeyFromPem(publicPem) as forge.pki.rsa.PublicKey;
  const md = forge.md.sha256.create();
  md.update(binary(payload));
  return key.verify(md.digest().bytes(), sig.toString('binary'));
}

const toBuffer = (p: string | Buffer) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p);
/** forge works on "binary" strings (one char per byte). */
const binary = (p: string | Buffer) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p).toString('binary');
