// The signers and the request signing step: the exchange's exact schemes, the client's raw bytes
// kept, a request already signed left alone; node:crypto and node-forge agree.
import { createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { forgeHmacSigner, forgeKeySigner, forgeVerify } from '../../src/upstream/signing/forge-signers.js';
import { carriesSignature, signUrl } from '../../src/upstream/signing/sign-request.js';
import { hmacSigner, keySigner } from '../../src/upstream/signing/signers.js';
import { ED, PASSPHRASE, RSA, RSA_ENC } from './support.js';

const test = suite('signers');
const payload = 'symbol=LTCBTC&side=BUY&type=LIMIT&timeInForce=GTC&quantity=1&price=0.1&recvWindow=5000&timestamp=1499827319559';

test('HMAC: the exchange documentation example, lower-case hex', () => {
  // From the exchange's API documentation (SIGNED endpoint example).
  const secret = 'NhqPtmdSJYdKjVHjA7PZj4Mge3R5YNiP1e3UZjInClVN65XAbvqqM6A7H5fATj0j';
  const sig = hmacSigner(secret).sign(payload);
  assert.is(sig, 'c8db56825ae71d6d79447849e617115f4a920fa2acdcab2b053c4b2838bd6b71');
  assert.is(forgeHmacSigner(secret).sign(payload), sig);
});

test('RSA: PKCS#1 v1.5 SHA-256, base64 then URL-encoded; node and forge agree and verify', () => {
  const key = createPrivateKey(RSA.privatePem);
  const sig = keySigner(key).sign(payload);
  assert.not.match(sig, /[+/=]/);
  assert.ok(verify('sha256', Buffer.from(payload), createPublicKey(RSA.publicPem), Buffer.from(decodeURIComponent(sig), 'base64')));
  assert.is(forgeKeySigner(key).sign(payload), sig, 'PKCS#1 v1.5 is deterministic: both libraries give the same bytes');
  assert.ok(forgeVerify(RSA.publicPem, payload, sig));
});

test('RSA from an encrypted PKCS#8 key', () => {
  const key = createPrivateKey({ key: RSA_ENC.privatePem, passphrase: PASSPHRASE });
  const sig = keySigner(key).sign(payload);
  assert.ok(forgeVerify(RSA_ENC.publicPem, payload, sig));
});

test('Ed25519: base64 then URL-encoded; node and forge agree and verify', () => {
  const key = createPrivateKey(ED.privatePem);
  const sig = keySigner(key).sign(payload);
  assert.ok(verify(null, Buffer.from(payload), createPublicKey(ED.publicPem), Buffer.from(decodeURIComponent(sig), 'base64')));
  assert.is(forgeKeySigner(key).sign(payload), sig, 'Ed25519 is deterministic');
  assert.ok(forgeVerify(ED.publicPem, payload, sig));
  assert.not.ok(forgeVerify(ED.publicPem, `${payload}x`, sig));
});

test('other key types are refused', () => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  assert.throws(() => keySigner(privateKey), /RSA and Ed25519/);
  assert.throws(() => keySigner(createPublicKey(ED.publicPem)), /private key/);
});

const hmac = (p: string | Buffer) => createHmac('sha256', 'k').update(p).digest('hex');

test('signUrl appends timestamp and signature to the raw query text, never re-encoding it', () => {
  const url = '/api/v3/account?x=%5b%22a%22%5D+b&omitZeroBalances=true';
  const out = signUrl(url, Buffer.alloc(0), hmac, { now: 1700000000000 });
  const query = 'x=%5b%22a%22%5D+b&omitZeroBalances=true&timestamp=1700000000000';
  assert.is(out, `/api/v3/account?${query}&signature=${hmac(query)}`);
});

test('signUrl: no query, recvWindow, body included in the payload', () => {
  assert.is(signUrl('/api/v3/account', Buffer.alloc(0), hmac, { now: 5 }), `/api/v3/account?timestamp=5&signature=${hmac('timestamp=5')}`);
  const rw = signUrl('/api/v3/account?', Buffer.alloc(0), hmac, { now: 5, recvWindow: '5000' });
  assert.is(rw, `/api/v3/account?timestamp=5&recvWindow=5000&signature=${hmac('timestamp=5&recvWindow=5000')}`);
  const body = Buffer.from('symbol=BNBUSDT&side=BUY');
  const post = signUrl('/api/v3/order', body, hmac, { now: 5 });
  assert.is(post, `/api/v3/order?timestamp=5&signature=${hmac('timestamp=5symbol=BNBUSDT&side=BUY')}`);
});

test('signUrl keeps a timestamp or recvWindow the client sent (query or body) instead of adding a second', () => {
  const a = signUrl('/x?timestamp=1&recvWindow=100', Buffer.alloc(0), hmac, { now: 5, recvWindow: '5000' });
  assert.is(a, `/x?timestamp=1&recvWindow=100&signature=${hmac('timestamp=1&recvWindow=100')}`);
  const b = signUrl('/x', Buffer.from('timestamp=1&a=b'), hmac, { now: 5 });
  assert.is(b, `/x?signature=${hmac('timestamp=1&a=b')}`);
});

test('carriesSignature: in the query or the form body, not as part of another name', () => {
  assert.ok(carriesSignature('/x?a=1&signature=ab', Buffer.alloc(0)));
  assert.ok(carriesSignature('/x?signature=ab', Buffer.alloc(0)));
  assert.ok(carriesSignature('/x', Buffer.from('a=1&signature=ab')));
  assert.not.ok(carriesSignature('/x?mysignature=ab', Buffer.alloc(0)));
  assert.not.ok(carriesSignature('/x', Buffer.alloc(0)));
});

test.run();
