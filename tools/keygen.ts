// npm run keygen -- --type rsa|ed25519 [--bits 2048|3072|4096] [--out <dir>] [--name <prefix>]
//                   [--passphrase <p> | --passphrase-env <VAR>] [--force]
//   Writes <prefix>-private.pem (PKCS#8, AES-256-CBC encrypted when a passphrase is given; mode 0600)
//   and <prefix>-public.pem (SPKI PEM: what the exchange's API-key registration takes), then checks
//   the pair with node-forge, an implementation independent of the gateway's node:crypto signer.
// npm run keygen -- --token [--name <label>]   a new random client token and its tokens-file entry
// npm run keygen -- --hash-token               hash a token read from stdin (one line)
// Exit status: 0 done, 1 failure, 2 bad arguments.
import { createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { flag, oneOf, parseArgs, UsageError } from '../src/args.js';
import { hashLine, newToken } from '../src/gateway/client-auth/tokens.js';
import { forgeVerify } from '../src/upstream/signing/forge-signers.js';
import { urlBase64 } from '../src/upstream/signing/signers.js';

const TYPES = ['rsa', 'ed25519'] as const;
const BITS = ['2048', '3072', '4096'] as const;
const USAGE = `usage: npm run keygen -- --type ${TYPES.join('|')} [--bits ${BITS.join('|')}] [--out <dir>] [--name <prefix>] [--passphrase <p> | --passphrase-env <VAR>] [--force]
       npm run keygen -- --token [--name <label>]
       npm run keygen -- --hash-token < token.txt`;

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv, ['type', 'bits', 'out', 'name', 'passphrase', 'passphrase-env'], ['token', 'hash-token', 'force', 'help']);
  if (args.positionals.length) throw new UsageError(`unexpected argument "${args.positionals[0]}"`);
  if (flag(args, 'help') === 'true') {
    console.log(USAGE);
    return 0;
  }
  if (flag(args, 'token') === 'true') return token(flag(args, 'name') ?? 'client');
  if (flag(args, 'hash-token') === 'true') return hashFromStdin();
  const typeFlag = flag(args, 'type');
  if (!typeFlag) throw new UsageError('missing --type (or --token / --hash-token)');
  const type = oneOf('--type', typeFlag, TYPES);
  const bits = Number(oneOf('--bits', flag(args, 'bits') ?? '2048', BITS));
  if (type === 'ed25519' && flag(args, 'bits')) throw new UsageError('--bits applies to RSA keys only');
  const passphrase = readPassphrase(flag(args, 'passphrase'), flag(args, 'passphrase-env'));
  // npm run changes into the package folder; a relative --out means the caller's folder.
  const out = resolve(process.env.INIT_CWD ?? process.cwd(), flag(args, 'out') ?? '.');
  const name = flag(args, 'name') ?? `exchange-${type}`;
  if (!/^[\w.-]+$/.test(name)) throw new UsageError('--name must be letters, digits, . _ or -');

  const encoding = passphrase
    ? { type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase } as const
    : { type: 'pkcs8', format: 'pem' } as const;
  const pair = type === 'rsa'
    ? generateKeyPairSync('rsa', { modulusLength: bits, publicExponent: 0x10001, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: encoding })
    : generateKeyPairSync('ed25519', { publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: encoding });

  // Self-check: the private key as written (decrypted with the passphrase) signs, forge verifies.
  const probe = `timestamp=${Date.now()}&keygen=self-check`;
  const key = createPrivateKey({ key: pair.privateKey, format: 'pem', passphrase });
  const sig = urlBase64(sign(type === 'rsa' ? 'sha256' : null, Buffer.from(probe), key));
  if (!forgeVerify(pair.publicKey, probe, sig)) throw new Error('self-check failed: node-forge did not verify a signature made with the new key');

  const privPath = join(out, `${name}-private.pem`);
  const pubPath = join(out, `${name}-public.pem`);
  const force = flag(args, 'force') === 'true';
  if (!force && [privPath, pubPath].some((p) => existsSync(p))) {
    throw new UsageError(`a key file already exists in ${out} with prefix ${name}; choose another --name or pass --force`);
  }
  mkdirSync(out, { recursive: true }); // --out may name a folder that does not exist yet
  const flagW = force ? 'w' : 'wx';
  try {
    writeFileSync(privPath, pair.privateKey, { mode: 0o600, flag: flagW });
    writeFileSync(pubPath, pair.publicKey, { mode: 0o644, flag: flagW });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new UsageError(`a key file already exists in ${out} with prefix ${name}; choose another --name or pass --force`);
    throw new Error(`cannot write the key files in ${out} (${code ?? 'error'})`);
  }
  const what = type === 'rsa' ? `RSA ${bits}` : 'Ed25519';
  console.log(`wrote ${privPath} (${what} private key, PKCS#8${passphrase ? ', encrypted with AES-256-CBC' : ''}, mode 0600)`);
  console.log(`wrote ${pubPath} (public key; register it at the exchange to get an API key)`);
  console.log('self-check: signature made with node:crypto verified by node-forge');
  console.log(`\n${pair.publicKey.trim()}\n`);
  console.log('then run the gateway with:');
  console.log('  EXCHANGE_API_KEY=<the key the exchange issued>');
  console.log(`  EXCHANGE_PRIVATE_KEY_FILE=${privPath}`);
  if (passphrase) console.log('  EXCHANGE_PRIVATE_KEY_PASSPHRASE=<the passphrase>');
  return 0;
}

function token(name: string): number {
  if (!/^[\w.@:-]{1,64}$/.test(name)) throw new UsageError('--name must be 1-64 letters, digits or . _ - @ :');
  const t = newToken();
  console.log(`token: ${t}`);
  console.log('  (give it to the client; it is shown once and stored nowhere)');
  console.log('tokens-file entry:');
  console.log(`  - name: ${name}\n    hash: ${hashLine(t)}\n    allow:\n      - GET /api/v3/*`);
  return 0;
}

async function hashFromStdin(): Promise<number> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const t = Buffer.concat(chunks).toString('utf8').trim();
  if (!t || /\s/.test(t)) throw new UsageError('--hash-token reads one token (no spaces) from stdin');
  console.log(hashLine(t));
  return 0;
}

function readPassphrase(direct: string | undefined, envName: string | undefined): string | undefined {
  if (direct !== undefined && envName !== undefined) throw new UsageError('give --passphrase or --passphrase-env, not both');
  const p = envName !== undefined ? process.env[envName] : direct;
  if (envName !== undefined && !p) throw new UsageError(`--passphrase-env: ${envName} is not set`);
  if (p !== undefined && p.length < 8) throw new UsageError('the passphrase must have at least 8 characters');
  return p;
}

main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e: unknown) => {
  if (e instanceof UsageError) {
    console.error(`error: ${e.message}\n${USAGE}`);
    process.exitCode = 2;
  } else {
    console.error(`error: ${(e as Error).message}`);
    process.exitCode = 1;
  }
});
