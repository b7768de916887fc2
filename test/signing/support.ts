// Shared fixtures of the signing tests: key pairs on disk, a tokens file, an in-process gateway
// in signing mode pointed at the local verifying upstream.
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDirFrom } from '../../src/config.js';
import { writeAtomically } from '../../src/catalogue/write-atomically.js';
import { readConfig } from '../../src/config.js';
import { hashLine } from '../../src/gateway/client-auth/tokens.js';
import { createLogger, type Logger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';
import { quickStop } from '../support/gateway.js';
import { tempDir } from '../support/temp.js';

export const dir = tempDir('gw-signing-');

export const HMAC_KEY = 'hmac-api-key-AbCdEf0123456789';
export const HMAC_SECRET = 'hmac-secret-Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0PpOoNnMmLl';
export const RSA_KEY = 'rsa-api-key-0123456789';
export const RSA_ENC_KEY = 'rsa-enc-api-key-0123456789';
export const ED_KEY = 'ed25519-api-key-0123456789';
export const PASSPHRASE = 'pass-phrase-Qw3rty-7788';

export interface KeyFiles { privateFile: string; privatePem: string; publicPem: string }

/**
 * A key pair for the tests, generated once per checkout and kept in the cache folder (an RSA-2048
 * pair takes ~0.3 s of CPU, and six files each need two): test keys, never used elsewhere.
 */
function cachedPair(type: 'rsa' | 'ed25519', name: string, passphrase?: string): { privateKey: string; publicKey: string } {
  const file = join(cacheDirFrom(), 'test-keys', `${name}.json`);
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    /* not made yet */
  }
  const enc = passphrase ? { type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase } as const : { type: 'pkcs8', format: 'pem' } as const;
  const pair = type === 'rsa'
    ? generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: enc })
    : generateKeyPairSync('ed25519', { publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: enc });
  writeAtomically(file, JSON.stringify(pair), 0o600); // files running in parallel never read half a key
  return pair;
}

function keyPair(type: 'rsa' | 'ed25519', name: string, passphrase?: string): KeyFiles {
  const pair = cachedPair(type, name, passphrase);
  const privateFile = join(dir, `${name}.pem`);
  writeFileSync(privateFile, pair.privateKey, { mode: 0o600 });
  return { privateFile, privatePem: pair.privateKey, publicPem: pair.publicKey };
}

export const RSA = keyPair('rsa', 'rsa');
export const RSA_ENC = keyPair('rsa', 'rsa-enc', PASSPHRASE);
export const ED = keyPair('ed25519', 'ed25519');

/** Body of a PEM (the base64 lines), what must never show up anywhere. */
export const pemBody = (pem: string) => pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');

/** Keys the verifying upstream knows. */
export const UPSTREAM_KEYS = {
  [HMAC_KEY]: { hmac: HMAC_SECRET },
  [RSA_KEY]: { publicKey: RSA.publicPem },
  [RSA_ENC_KEY]: { publicKey: RSA_ENC.publicPem },
  [ED_KEY]: { publicKey: ED.publicPem },
};

export const TOKENS = {
  trader: 'gwt_trader-7d1c9a0b3e5f4a2b8c6d0e1f2a3b4c5d6e7f8a9b0c1d2e3',
  reader: 'gwt_reader-0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7',
  margin: 'gwt_margin-11223344556677889900aabbccddeeff0011223344556',
};

/** A tokens file: trader may use the trade module and GET /api/v3/*; reader only GET market data; margin only /sapi/v1/margin/**. */
export const tokensFile = join(dir, 'tokens.yaml');
writeFileSync(tokensFile, `# test tokens
tokens:
  - name: trader
    hash: ${hashLine(TOKENS.trader)}
    allow:
      - GET /api/v3/*
      - POST,PUT /api/v3/userDataStream
      - module: trade
  - name: reader
    hash: ${hashLine(TOKENS.reader)}
    methods: [GET]
    allow:
      - module: market
  - name: margin
    hash: ${hashLine(TOKENS.margin)}
    allow:
      - '* /sapi/v1/margin/**'
`);

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** Start a gateway in-process with the given signing environment. */
export function signingGateway(upstream: string, env: NodeJS.ProcessEnv, extra: string[] = [], logger: Logger = createLogger('silent')): Promise<RunningGateway> {
  const args = ['--port', '0', '--upstream', `exchange=${upstream}`, '--release', '3.12.0', ...quickStop(extra), ...extra];
  return startGateway(readConfig(args, env), { logger });
}
