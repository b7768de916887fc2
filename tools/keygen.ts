// npm run keygen -- --type rsa|ed25519 [--bits 2048|3072|4096] [--out <dir>] [--name <prefix>]
//                   [--passphrase <p> | --passphrase-env <VAR>] [--force]
//   Writes <prefix>-private.pem (PKCS#8, AES-256-CBC encrypted when a passphrase is given; mode 0600)
//   and <prefix>-public.pem (SPKI PEM: what the exchange's API-key registration takes), then checks
//   the pair with node-forge, an implementation independent of the gateway's node:crypto signer.
//   stdout: the public key alone; stderr: what was written and what to do next.
// npm run keygen -- --token [--name <label>] [--allow <entry>]… [--right <right>]… [--write <tokens.yaml> | --format token|yaml]
//   A new random client token, the tokens file entry holding its hash, and what it may call. --allow
//   sets its allow-list (default GET /api/v3/*), --right adds a right (admin, user-data). stdout is
//   one thing a script can take whole: the token (default, and with --write, which adds the entry to
//   a tokens file, made if missing), or with --format yaml the tokens file; the rest goes to stderr.
// npm run keygen -- --hash-token               hash a token read from stdin (one line)
// Exit status: 0 done, 1 failure, 2 bad arguments.
import { createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { flag, oneOf, parseArgs, UsageError } from '../src/args.js';
import { hashLine, newToken, parseTokens, readTokensFile, RIGHTS, type TokenEntry } from '../src/gateway/client-auth/tokens.js';
import { forgeVerify } from '../src/upstream/signing/forge-signers.js';
import { urlBase64 } from '../src/upstream/signing/signers.js';

const TYPES = ['rsa', 'ed25519'] as const;
const BITS = ['2048', '3072', '4096'] as const;
const FORMATS = ['token', 'yaml'] as const;
const USAGE = `usage: npm run keygen -- --type ${TYPES.join('|')} [--bits ${BITS.join('|')}] [--out <dir>] [--name <prefix>] [--passphrase <p> | --passphrase-env <VAR>] [--force]
       npm run keygen -- --token [--name <label>] [--allow '<METHOD /path>']… [--right ${RIGHTS.join('|')}]… [--write <tokens.yaml> | --format ${FORMATS.join('|')}]
       npm run keygen -- --hash-token < token.txt`;

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv, ['type', 'bits', 'out', 'name', 'passphrase', 'passphrase-env', 'allow', 'right', 'write', 'format'], ['token', 'hash-token', 'force', 'help']);
  if (args.positionals.length) throw new UsageError(`unexpected argument "${args.positionals[0]}"`);
  if (flag(args, 'help') === 'true') {
    console.log(USAGE);
    return 0;
  }
  if (flag(args, 'token') === 'true') {
    const format = oneOf('--format', flag(args, 'format') ?? 'token', FORMATS);
    const write = flag(args, 'write');
    if (write !== undefined && flag(args, 'format') !== undefined) throw new UsageError('give --write (adds the entry to a tokens file) or --format (prints it), not both');
    return token({ name: flag(args, 'name') ?? 'client', allow: args.flags.get('allow') ?? [], rights: args.flags.get('right') ?? [], write, format });
  }
  if (flag(args, 'format') !== undefined || flag(args, 'right') !== undefined) throw new UsageError('--format and --right go with --token');
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
  console.error(`wrote ${privPath} (${what} private key, PKCS#8${passphrase ? ', encrypted with AES-256-CBC' : ''}, mode 0600)`);
  console.error(`wrote ${pubPath} (public key, also on stdout; register it at the exchange to get an API key)`);
  console.error('self-check: signature made with node:crypto verified by node-forge');
  console.log(pair.publicKey.trim());
  console.error('then run the gateway with:');
  console.error('  EXCHANGE_API_KEY=<the key the exchange issued>');
  console.error(`  EXCHANGE_PRIVATE_KEY_FILE=${privPath}`);
  if (passphrase) console.error('  EXCHANGE_PRIVATE_KEY_PASSPHRASE=<the passphrase>');
  return 0;
}

/** The default allow-list of a new token: reads only. */
const READ_ONLY = ['GET /api/v3/*'];
/** What a token needs to place an order, as the hint shows it. */
const ORDER = 'POST /api/v3/order';

interface TokenRequest {
  name: string;
  allow: string[];
  rights: string[];
  /** A tokens file to add the entry to (stdout: the token). */
  write: string | undefined;
  /** What stdout carries without --write: the token, or the tokens file. */
  format: 'token' | 'yaml';
}

/**
 * A new token. stdout carries one thing whole, for a script to take (the token, or with --format
 * yaml the tokens file); everything said to the person goes to stderr, so nothing there points at
 * output that went elsewhere.
 */
function token({ name, allow, rights, write, format }: TokenRequest): number {
  if (!/^[\w.@:-]{1,64}$/.test(name)) throw new UsageError('--name must be 1-64 letters, digits or . _ - @ :');
  const t = newToken();
  const item = { name, hash: hashLine(t), ...(rights.length ? { rights: [...new Set(rights)] } : {}), allow: allow.length ? allow : READ_ONLY };
  // The entries are checked as the gateway reads them, so a typo fails here, not at start-up.
  const [entry] = parseTokens({ tokens: [item] }, '--allow/--right');
  const yaml = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const file = yaml.stringify({ tokens: [item] }).trimEnd();
  const once = 'shown once and stored nowhere; the client sends it as "Authorization: Bearer <token>"';
  if (write) {
    writeEntry(write, item, yaml);
    console.log(t);
    console.error(`added token "${name}" to ${write}, which holds its hash; the token is on stdout (${once})`);
  } else if (format === 'yaml') {
    console.log(file);
    console.error(`token: ${t}\n(${once}; the tokens file on stdout holds its hash)`);
  } else {
    console.log(t);
    console.error(`made token "${name}": it is on stdout (${once})\nIts tokens file: save it as tokens.yaml and start the gateway with --tokens-file tokens.yaml, or put\nthe item under the tokens: list of a file you have (--write <file> does that, --format yaml prints only this):\n${file}`);
  }
  console.error(`${mayCall(entry)}${placesOrders(entry) ? '' : orderHint(name, rights, item.allow)}`);
  return 0;
}

/** Add a token's entry to a tokens file (made if missing); a name already there is refused. */
function writeEntry(write: string, item: object & { name: string }, yaml: typeof import('yaml')): void {
  const file = resolve(process.env.INIT_CWD ?? process.cwd(), write);
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true }); // --write may name a folder that does not exist yet
    return writeFileSync(file, yaml.stringify({ tokens: [item] }));
  }
  const names = readTokensFile(file, write).map((x) => x.name);
  if (names.includes(item.name)) throw new UsageError(`${write} already has a token named "${item.name}"; choose another --name`);
  const doc = yaml.parseDocument(readFileSync(file, 'utf8'));
  doc.addIn(['tokens'], item);
  writeFileSync(file, doc.toString());
}

/** What each right gives, as keygen says it. */
const RIGHT_TEXT: Record<(typeof RIGHTS)[number], string> = {
  admin: 'admin (POST /_gateway/reload from off the machine)',
  'user-data': 'user-data (listen keys and user-data subscriptions: docs/user-data.md)',
};

/** What a token may call, and the rights it holds. */
function mayCall(t: TokenEntry): string {
  const rights = t.rights.size ? `\nIt holds the right${t.rights.size > 1 ? 's' : ''} ${[...t.rights].map((r) => RIGHT_TEXT[r]).join(' and ')}.` : '';
  return `This token may call: ${t.allow.map((a) => a.text).join(', ')} (* = one path segment, ** = any depth).${rights}`;
}

/** How to make the same token able to place orders. */
function orderHint(name: string, rights: string[], allow: string[]): string {
  return `\nIt cannot place orders. To allow them, ask for them when you make it:\n  npm run keygen -- --token --name ${name}${rights.map((r) => ` --right ${r}`).join('')}${allow.map((a) => ` --allow '${a}'`).join('')} --allow '${ORDER}'\nor add "- ${ORDER}" (or "- module: trade", "- ws: 'order.*'") under its allow: (docs/signing-and-tokens.md).`;
}

/** Whether the token may call POST /api/v3/order (its path, or the trade module). */
function placesOrders(t: TokenEntry): boolean {
  const post = (m: Set<string> | null) => m === null || m.has('POST');
  return post(t.methods) && t.allow.some((a) => post(a.methods) && (a.path?.test('/api/v3/order') === true || a.module === 'trade'));
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
