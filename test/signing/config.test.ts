// Signing settings, key loading and tokens files: errors name the setting, never its value.
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { readConfig } from '../../src/config.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { resolveService } from '../../src/catalogue/resolve.js';
import { allows } from '../../src/gateway/client-auth/hook.js';
import { hashLine, parseTokens, pathPattern, readTokensFile } from '../../src/gateway/client-auth/tokens.js';
import { buildRouteTable, type Route } from '../../src/gateway/routes/route-table.js';
import { loadSigner } from '../../src/upstream/signing/keys.js';
import { Secret } from '../../src/upstream/signing/secret.js';
import { readSigningSettings } from '../../src/upstream/signing/settings.js';
import { isLoopback } from '../../src/gateway/signing/setup.js';
import { dir, ED, HMAC_SECRET, PASSPHRASE, RSA, RSA_ENC, tokensFile, TOKENS } from './support.js';

const test = suite('signing configuration');

/** The UsageError message of fn, checked to hold none of the secrets. */
function failure(fn: () => unknown, ...secrets: string[]): string {
  try {
    fn();
  } catch (e) {
    const msg = (e as Error).message;
    for (const s of secrets) assert.not.ok(msg.includes(s), `message leaks a value: ${msg}`);
    assert.not.match(msg, /\n/, 'one line');
    return msg;
  }
  throw new Error('expected a failure');
}

test('nothing configured: signing off', () => {
  assert.is(readSigningSettings({}, undefined), undefined);
  assert.is(readConfig(['--port', '0'], {}).signing, undefined);
});

test('HMAC and key-file settings from the environment; recvWindow checked', () => {
  const h = readSigningSettings({ EXCHANGE_API_KEY: 'k', EXCHANGE_API_SECRET: HMAC_SECRET, EXCHANGE_RECV_WINDOW: '5000' }, undefined)!;
  assert.is(h.apiSecret!.reveal(), HMAC_SECRET);
  assert.is(h.recvWindow, '5000');
  const k = readSigningSettings({ EXCHANGE_API_KEY: 'k', EXCHANGE_PRIVATE_KEY_FILE: RSA_ENC.privateFile, EXCHANGE_PRIVATE_KEY_PASSPHRASE: PASSPHRASE }, undefined)!;
  assert.is(k.privateKeyFile, RSA_ENC.privateFile);
  assert.is(k.privateKeyPassphrase!.reveal(), PASSPHRASE);
  for (const rw of ['0', '60001', 'soon', '-1']) {
    assert.match(failure(() => readSigningSettings({ EXCHANGE_API_KEY: 'k', EXCHANGE_API_SECRET: 's', EXCHANGE_RECV_WINDOW: rw }, undefined)), /^EXCHANGE_RECV_WINDOW must be/);
  }
});

test('inconsistent settings name the variables, never the values', () => {
  const S = HMAC_SECRET;
  assert.match(failure(() => readSigningSettings({ EXCHANGE_API_SECRET: S }, undefined), S), /EXCHANGE_API_SECRET is set but EXCHANGE_API_KEY is not/);
  assert.match(failure(() => readSigningSettings({ EXCHANGE_API_KEY: 'key-value-1', EXCHANGE_API_SECRET: S, EXCHANGE_PRIVATE_KEY_FILE: RSA.privateFile }, undefined), S, 'key-value-1', RSA.privateFile), /either EXCHANGE_API_SECRET .* or EXCHANGE_PRIVATE_KEY_FILE/);
  assert.match(failure(() => readSigningSettings({ EXCHANGE_API_KEY: 'key-value-1' }, undefined), 'key-value-1'), /neither EXCHANGE_API_SECRET/);
  assert.match(failure(() => readSigningSettings({ EXCHANGE_API_KEY: 'k', EXCHANGE_API_SECRET: S, EXCHANGE_PRIVATE_KEY_PASSPHRASE: PASSPHRASE }, undefined), S, PASSPHRASE), /EXCHANGE_PRIVATE_KEY_PASSPHRASE is set but EXCHANGE_PRIVATE_KEY_FILE is not/);
  assert.match(failure(() => readSigningSettings({ EXCHANGE_RECV_WINDOW: '5000' }, undefined)), /signing is off/);
  assert.match(failure(() => readSigningSettings({ EXCHANGE_API_KEY: 'has space', EXCHANGE_API_SECRET: S }, undefined), S, 'has space'), /EXCHANGE_API_KEY must be printable ASCII/);
});

test('config file signing: section, environment wins per field; errors name the file key', () => {
  const file = join(dir, 'gateway.yaml');
  writeFileSync(file, `signing:\n  apiKey: file-key\n  apiSecret: ${HMAC_SECRET}\n  recvWindow: 3000\ntokensFile: ${tokensFile}\n`);
  const c = readConfig(['--config', file], {});
  assert.is(c.signing!.apiKey.reveal(), 'file-key');
  assert.is(c.signing!.recvWindow, '3000');
  assert.is(c.tokensFile, tokensFile);
  const e = readConfig(['--config', file], { EXCHANGE_API_KEY: 'env-key', EXCHANGE_RECV_WINDOW: '100' });
  assert.is(e.signing!.apiKey.reveal(), 'env-key');
  assert.is(e.signing!.apiSecret!.reveal(), HMAC_SECRET);
  assert.is(e.signing!.recvWindow, '100');
  assert.is(readConfig(['--config', file, '--tokens-file', '/other'], {}).tokensFile, '/other');
  assert.is(readConfig(['--config', file], { GATEWAY_TOKENS_FILE: '/env' }).tokensFile, '/env');
  writeFileSync(file, `signing:\n  apiSecret: ${HMAC_SECRET}\n`);
  assert.match(failure(() => readConfig(['--config', file], {}), HMAC_SECRET), /config signing\.apiSecret is set but EXCHANGE_API_KEY is not/);
  writeFileSync(file, `signing:\n  secret: ${HMAC_SECRET}\n`);
  assert.match(failure(() => readConfig(['--config', file], {}), HMAC_SECRET), /unknown key "signing\.secret"/);
});

test('secrets print as [redacted] everywhere but reveal()', () => {
  const s = readSigningSettings({ EXCHANGE_API_KEY: 'key-AAAA', EXCHANGE_API_SECRET: HMAC_SECRET }, undefined)!;
  for (const text of [inspect(s, { depth: 9 }), JSON.stringify(s), `${s.apiSecret}`, String(s.apiKey)]) {
    assert.not.ok(text.includes(HMAC_SECRET), text);
    assert.not.ok(text.includes('key-AAAA'), text);
  }
  assert.is(new Secret('x').reveal(), 'x');
});

const keySettings = (file: string, passphrase?: string) =>
  readSigningSettings({ EXCHANGE_API_KEY: 'k', EXCHANGE_PRIVATE_KEY_FILE: file, EXCHANGE_PRIVATE_KEY_PASSPHRASE: passphrase }, undefined)!;

test('key files: RSA, encrypted RSA, Ed25519 load to the right signer', () => {
  assert.is(loadSigner(keySettings(RSA.privateFile)).algorithm, 'RSA');
  assert.is(loadSigner(keySettings(RSA_ENC.privateFile, PASSPHRASE)).algorithm, 'RSA');
  assert.is(loadSigner(keySettings(ED.privateFile)).algorithm, 'ED25519');
});

test('key file problems name the variable, never the path, passphrase or key', () => {
  const missing = join(dir, 'nope.pem');
  assert.match(failure(() => loadSigner(keySettings(missing)), missing), /^EXCHANGE_PRIVATE_KEY_FILE: cannot read the key file \(ENOENT\)$/);
  assert.match(failure(() => loadSigner(keySettings(RSA_ENC.privateFile)), RSA_ENC.privateFile), /encrypted private key: set EXCHANGE_PRIVATE_KEY_PASSPHRASE/);
  assert.match(failure(() => loadSigner(keySettings(RSA_ENC.privateFile, 'wrong-passphrase')), 'wrong-passphrase', RSA_ENC.privateFile), /cannot decrypt .* EXCHANGE_PRIVATE_KEY_PASSPHRASE \(wrong passphrase\?\)/);
  const pub = join(dir, 'pub.pem');
  writeFileSync(pub, ED.publicPem);
  assert.match(failure(() => loadSigner(keySettings(pub)), pub), /holds a public key/);
  const junk = join(dir, 'junk.pem');
  writeFileSync(junk, 'not a key at all');
  assert.match(failure(() => loadSigner(keySettings(junk)), junk, 'not a key'), /not a PEM private key/);
  const ec = join(dir, 'ec.pem');
  writeFileSync(ec, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
  assert.match(failure(() => loadSigner(keySettings(ec)), ec), /the key is ec; the exchange accepts RSA .* and Ed25519/);
});

test('tokens file: YAML and JSON, hashed tokens, allow entries', () => {
  const tokens = readTokensFile(tokensFile);
  assert.equal(tokens.map((t) => t.name), ['trader', 'reader', 'margin']);
  const json = join(dir, 'tokens.json');
  writeFileSync(json, JSON.stringify([{ name: 'j', hash: hashLine('abc').toUpperCase().replace('SHA256', 'sha256'), allow: ['GET,POST /api/v3/order'] }]));
  const [j] = readTokensFile(json);
  assert.is(j.digest!.toString('hex'), hashLine('abc').slice(7));
  assert.equal([...j.allow[0].methods!], ['GET', 'POST']);
  assert.equal([...j.rights], [], 'no rights unless given');
  // A token for admin actions alone (reload) needs no allow-list.
  const [ops] = parseTokens({ tokens: [{ name: 'ops', hash: hashLine('ops'), rights: ['admin'] }] });
  assert.equal([...ops.rights], ['admin']);
  assert.equal(ops.allow, []);
});

test('tokens file problems: named by position and name, hash values never echoed', () => {
  const ok = { name: 'a', hash: hashLine('a'), allow: ['/x'] };
  const plain = TOKENS.trader;
  assert.match(failure(() => parseTokens({ tokens: [{ name: 'a', token: plain, allow: ['/x'] }] }, 'T'), plain), /tokens\[0\]: unknown key "token".*store the hash, never the token/);
  assert.match(failure(() => parseTokens({ tokens: [{ ...ok, hash: plain }] }, 'T'), plain), /tokens\[0\] \("a"\): hash must be sha256:<64 hex digits>/);
  assert.match(failure(() => parseTokens({ tokens: [ok, { ...ok }] }, 'T')), /tokens\[1\] \("a"\): the name is used twice/);
  assert.match(failure(() => parseTokens({ tokens: [ok, { ...ok, name: 'b' }] }, 'T')), /tokens\[1\] \("b"\): the same hash appears twice/);
  assert.match(failure(() => parseTokens({ tokens: [{ ...ok, allow: [] }] }, 'T')), /allow must be a non-empty list/);
  assert.match(failure(() => parseTokens({ tokens: [{ ...ok, allow: ['GET api/v3'] }] }, 'T')), /allow\[0\]: "GET api\/v3" is not/);
  assert.match(failure(() => parseTokens({ tokens: [{ ...ok, allow: [{ module: 'trade', methods: ['FETCH'] }] }] }, 'T')), /unknown method "FETCH"/);
  assert.match(failure(() => parseTokens({ tokens: [{ ...ok, allow: [{ module: 'trade', path: '/x' }] }] }, 'T')), /exactly one of module or path/);
  assert.match(failure(() => parseTokens({ tokens: [] }, 'T')), /empty/);
  assert.match(failure(() => parseTokens({ tokens: [{ ...ok, rights: ['root'] }] }, 'T')), /tokens\[0\] \("a"\): rights: unknown right "root"; valid: admin/);
  assert.match(failure(() => parseTokens({ tokens: [{ ...ok, rights: 'admin' }] }, 'T')), /rights must be a list/);
  assert.match(failure(() => parseTokens({ tokens: [{ name: 'a', hash: hashLine('a') }] }, 'T')), /allow must be a non-empty list/);
  const bad = join(dir, 'bad-tokens.yaml');
  writeFileSync(bad, `tokens:\n  - name: a\n    hash: "${plain}\n  - [unclosed`);
  assert.match(failure(() => readTokensFile(bad), plain), /^GATEWAY_TOKENS_FILE: the tokens file is neither valid YAML nor JSON$/);
});

test('path patterns: * one segment, ** any depth, the rest literal', () => {
  assert.ok(pathPattern('/api/v3/*').test('/api/v3/account'));
  assert.not.ok(pathPattern('/api/v3/*').test('/api/v3/order/oco'));
  assert.ok(pathPattern('/sapi/v1/margin/**').test('/sapi/v1/margin/isolated/account'));
  assert.not.ok(pathPattern('/sapi/v1/margin/**').test('/sapi/v1/marginx/a'));
  assert.not.ok(pathPattern('/api/v3/order.x').test('/api/v3/orderXx'));
});

test('allow decisions against real catalogue routes (modules, methods, patterns)', () => {
  const { catalogue } = loadCatalogue();
  const view = resolveService(catalogue.services.find((s) => s.id === 'exchange')!, '3.12.0');
  const table = buildRouteTable([view]);
  const route = (key: string): Route => table.byKey(key)!;
  const [trader, reader, margin] = readTokensFile(tokensFile);
  assert.ok(allows(trader, route('POST /api/v3/order')));
  assert.ok(allows(trader, route('GET /api/v3/account')));
  assert.not.ok(allows(trader, route('GET /sapi/v1/margin/account')));
  assert.ok(allows(reader, route('GET /api/v3/klines')));
  assert.not.ok(allows(reader, route('GET /api/v3/account')));
  assert.ok(allows(margin, route('GET /sapi/v1/margin/account')));
  assert.ok(allows(margin, route('POST /sapi/v1/margin/order')));
  assert.not.ok(allows(margin, route('GET /api/v3/account')));
});

test('loopback hosts', () => {
  for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) assert.ok(isLoopback(h), h);
  for (const h of ['0.0.0.0', '::', '10.0.0.1', 'example.com', '128.0.0.1']) assert.not.ok(isLoopback(h), h);
});

test.run();
