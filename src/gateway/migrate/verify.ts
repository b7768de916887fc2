// Check a client's signature over the request as received, with the key the gateway holds: the
// exchange's three schemes are deterministic (HMAC-SHA256; RSA PKCS#1 v1.5; Ed25519), so signing
// the same payload again and comparing is the verification. The payload is the exchange's: the
// query without its trailing signature, then the body (a signature sent last in a form body is
// taken out of the body instead). The websocket API's frames use signatureMatches() over their params.
import { timingSafeEqual } from 'node:crypto';
import type { Signer } from '../../upstream/signing/signers.js';

const TRAILING = /(?:^|&)signature=([^&]*)$/;

export function verifySignature(signer: Signer, query: string, body: Buffer): boolean {
  let payload: string | Buffer;
  let sent: string;
  const inQuery = TRAILING.exec(query);
  if (inQuery) {
    sent = inQuery[1];
    const rest = query.slice(0, inQuery.index);
    payload = body.length ? Buffer.concat([Buffer.from(rest, 'utf8'), body]) : rest;
  } else {
    const text = body.toString('latin1');
    const inBody = TRAILING.exec(text);
    if (!inBody) return false;
    sent = inBody[1];
    payload = Buffer.concat([Buffer.from(query, 'utf8'), body.subarray(0, inBody.index)]);
  }
  return signatureMatches(signer, payload, sent);
}

/** Whether `sent` (URL-encoded or not) is the signature `signer` gives `payload`, compared in constant time. */
export function signatureMatches(signer: Signer, payload: string | Buffer, sent: string): boolean {
  const want = Buffer.from(decode(signer.sign(payload)));
  const got = Buffer.from(decode(sent));
  return got.length === want.length && timingSafeEqual(got, want);
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
