// Client tokens: read from GATEWAY_TOKENS_FILE (YAML or JSON), stored hashed (sha256:<hex>).
// Tokens are random (npm run keygen -- --token makes 256-bit ones), so one SHA-256 is enough:
// there is nothing to brute-force that a slow hash would protect.
//
//   tokens:
//     - name: dashboard                 # shown in logs and 403 answers (never the token)
//       hash: sha256:9f86d081884c7d65…  # 64 hex digits
//       methods: [GET]                  # optional: only these methods, for every allow entry
//       rights: [admin]                 # optional: admin actions (POST /_gateway/reload from off
//                                       # the machine, in signing mode); allow may then be left out;
//                                       # user-data: the account's user data (listen keys and their
//                                       # streams, user-data subscriptions; a full allow-list has it)
//       # or, instead of hash, with --tls-client-ca: a client certificate (docs/signing-and-tokens.md)
//       certificate: { subject: 'CN=desk,O=Example' }   # or { fingerprint: <SHA-256, hex, colons allowed> }
//       allow:
//         - GET /api/v3/*               # "[METHOD[,METHOD…]|*] /path/pattern": * one segment, ** any depth
//         - '* /sapi/v1/margin/**'
//         - module: trade               # every endpoint of a catalogue module
//           methods: [GET, POST]        # optional, per entry
//         - path: /api/v3/order
//           methods: [DELETE]
//         - ws: 'order.*'               # websocket-API methods: a name, or a pattern where * is any text
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { UsageError } from '../../usage-error.js';

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
/** Rights a token may hold besides its allow-list: `admin` may reload the gateway over HTTP from off the machine. */
export const RIGHTS = ['admin', 'user-data'] as const;
export type Right = (typeof RIGHTS)[number];

export interface AllowEntry {
  /** null: any method. */
  methods: Set<string> | null;
  /** Anchored path pattern, or undefined for a module entry. */
  path?: RegExp;
  /** Catalogue module name. */
  module?: string;
  /** Anchored websocket-API method pattern (`ws:` entry); such an entry allows no REST endpoint. */
  ws?: RegExp;
  /** As written, for messages. */
  text: string;
}

/** A client certificate a tokens-file entry names: its SHA-256 fingerprint (hex, lower case) or its subject (attributes sorted, one `KEY=value` a line). */
export interface CertificateName {
  fingerprint?: string;
  subject?: string;
}

export interface TokenEntry {
  name: string;
  /** SHA-256 of the token (32 bytes); absent for an entry that names a client certificate instead. */
  digest?: Buffer;
  certificate?: CertificateName;
  methods: Set<string> | null;
  allow: AllowEntry[];
  rights: ReadonlySet<Right>;
  /** Set when a reload finds the entry removed or narrowed in the tokens file: refused from then on, before the reload completes. */
  revoked?: true;
}

export const sha256 = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

/** The line to put in the tokens file for a token. */
export const hashLine = (token: string): string => `sha256:${sha256(token).toString('hex')}`;

/** A new random token: "gwt_" + 43 base64url characters (256 bits). */
export const newToken = (): string => `gwt_${randomBytes(32).toString('base64url')}`;

const BEARER = /^Bearer +([\x21-\x7e]{1,512}) *$/i;

/** The token of an Authorization header: undefined when there is none, null when it is not "Bearer <token>". */
export function bearerToken(header: string | undefined): string | null | undefined {
  if (typeof header !== 'string' || !header) return undefined;
  return BEARER.exec(header)?.[1] ?? null;
}

/** The entry of a token, in constant time in the token: every entry is compared, none short-circuits. A revoked entry is no entry. */
export function findToken(tokens: readonly TokenEntry[], token: string): TokenEntry | undefined {
  const digest = sha256(token);
  let found: TokenEntry | undefined;
  for (const t of tokens) if (t.digest && timingSafeEqual(t.digest, digest)) found = t;
  return found?.revoked ? undefined : found;
}

/** Read and check a tokens file; `source` names the setting in messages (e.g. GATEWAY_TOKENS_FILE). */
export function readTokensFile(path: string, source = 'GATEWAY_TOKENS_FILE'): TokenEntry[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`${source}: cannot read the tokens file (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let data: unknown;
  try {
    data = /^\s*[[{]/.test(text) ? JSON.parse(text) : (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse(text);
  } catch {
    // The parser's message quotes the offending text, which may be a token: never show it.
    throw new UsageError(`${source}: the tokens file is neither valid YAML nor JSON`);
  }
  return parseTokens(data, source);
}

export function parseTokens(data: unknown, source = 'tokens'): TokenEntry[] {
  const list = Array.isArray(data) ? data : (data as { tokens?: unknown } | null)?.tokens;
  if (!Array.isArray(list)) throw new UsageError(`${source}: expected a list of tokens (a "tokens:" key holding a list)`);
  if (!list.length) throw new UsageError(`${source}: the tokens list is empty`);
  const names = new Set<string>();
  const digests = new Set<string>();
  return list.map((raw, i) => {
    const at = `${source}: tokens[${i}]`;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new UsageError(`${at} must be a mapping with name, hash and allow`);
    const t = raw as Record<string, unknown>;
    for (const k of Object.keys(t)) {
      if (!['name', 'hash', 'certificate', 'methods', 'allow', 'rights', 'note'].includes(k)) {
        throw new UsageError(`${at}: unknown key "${k}"; valid: name, hash, certificate, methods, allow, rights, note${k === 'token' ? ' (store the hash, never the token: npm run keygen -- --token)' : ''}`);
      }
    }
    if (typeof t.name !== 'string' || !/^[\w.@:-]{1,64}$/.test(t.name)) throw new UsageError(`${at}: name must be 1-64 letters, digits or . _ - @ :`);
    const label = `${at} ("${t.name}")`;
    if (names.has(t.name)) throw new UsageError(`${label}: the name is used twice`);
    names.add(t.name);
    if ((t.hash === undefined) === (t.certificate === undefined)) throw new UsageError(`${label}: give exactly one of hash (a bearer token's) or certificate (a client certificate's subject or fingerprint)`);
    const credential = t.hash !== undefined ? { digest: tokenDigest(t.hash, label) } : { certificate: certificateName(t.certificate, `${label}: certificate`) };
    const key = credential.digest?.toString('hex') ?? JSON.stringify(credential.certificate);
    if (digests.has(key)) throw new UsageError(`${label}: the same ${credential.digest ? 'hash' : 'certificate'} appears twice`);
    digests.add(key);
    const rights = rightSet(t.rights, `${label}: rights`);
    // A token for admin actions alone needs no endpoint.
    const allow = t.allow === undefined && rights.size ? [] : t.allow;
    if (!Array.isArray(allow) || (!allow.length && !rights.size)) throw new UsageError(`${label}: allow must be a non-empty list of endpoint patterns, modules or ws methods`);
    return {
      name: t.name,
      ...credential,
      methods: methodSet(t.methods, `${label}: methods`),
      allow: allow.map((a, j) => allowEntry(a, `${label}: allow[${j}]`)),
      rights,
    };
  });
}

function tokenDigest(hash: unknown, label: string): Buffer {
  const m = typeof hash === 'string' ? /^sha256:([0-9a-fA-F]{64})$/.exec(hash.trim()) : null;
  if (!m) throw new UsageError(`${label}: hash must be sha256:<64 hex digits> (npm run keygen -- --token prints one)`);
  return Buffer.from(m[1], 'hex');
}

/** `{ subject: 'CN=desk,O=Example' }` or `{ fingerprint: 'AB:CD:…' }` (what `openssl x509 -noout -fingerprint -sha256` prints). */
function certificateName(v: unknown, at: string): CertificateName {
  const o = v && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : undefined;
  const keys = o ? Object.keys(o) : [];
  if (!o || keys.length !== 1 || !['subject', 'fingerprint'].includes(keys[0]) || typeof o[keys[0]] !== 'string') {
    throw new UsageError(`${at} must be a mapping with one key, subject ('CN=desk,O=Example') or fingerprint (SHA-256, hex)`);
  }
  if (typeof o.fingerprint === 'string') {
    const hex = o.fingerprint.trim().replace(/^sha256 fingerprint=/i, '').replace(/:/g, '');
    if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new UsageError(`${at}: fingerprint must be 64 hex digits, colons allowed (openssl x509 -noout -fingerprint -sha256 -in <cert> prints it)`);
    return { fingerprint: hex.toLowerCase() };
  }
  const parts = (o.subject as string).split(/\s*[,\n]\s*(?=[A-Za-z][\w.]*=)/).map((p) => p.trim());
  if (!parts.every((p) => /^[A-Za-z][\w.]*=./.test(p))) throw new UsageError(`${at}: subject must be KEY=value attributes separated by commas, e.g. 'CN=desk,O=Example'`);
  return { subject: subjectKey(parts) };
}

/** A subject as compared: its attributes (names upper-cased), sorted, one a line; the order they were written in does not matter. */
export const subjectKey = (attributes: readonly string[]): string =>
  attributes.map((a) => { const eq = a.indexOf('='); return `${a.slice(0, eq).toUpperCase()}=${a.slice(eq + 1)}`; }).sort().join('\n');

function allowEntry(a: unknown, at: string): AllowEntry {
  if (typeof a === 'string') {
    const m = /^(?:(\*|[A-Za-z]+(?:,[A-Za-z]+)*)\s+)?(\/\S*)$/.exec(a.trim());
    if (!m) throw new UsageError(`${at}: "${a}" is not "[METHOD|*] /path/pattern"`);
    return { methods: m[1] === undefined || m[1] === '*' ? null : methodSet(m[1].split(','), at), path: pathPattern(m[2], at), text: a.trim() };
  }
  if (!a || typeof a !== 'object' || Array.isArray(a)) throw new UsageError(`${at}: expected "METHOD /path" or a mapping with module, path or ws`);
  const o = a as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (!['module', 'path', 'methods', 'ws'].includes(k)) throw new UsageError(`${at}: unknown key "${k}"; valid: module, path, methods, ws`);
  }
  if (o.ws !== undefined) return wsEntry(o, at);
  if ((o.module === undefined) === (o.path === undefined)) throw new UsageError(`${at}: give exactly one of module or path`);
  const methods = methodSet(o.methods, `${at}: methods`);
  const mtext = methods ? `${[...methods].join(',')} ` : '';
  if (o.module !== undefined) {
    if (typeof o.module !== 'string' || !o.module) throw new UsageError(`${at}: module must be a catalogue module name`);
    return { methods, module: o.module, text: `${mtext}module ${o.module}` };
  }
  if (typeof o.path !== 'string' || !o.path.startsWith('/')) throw new UsageError(`${at}: path must start with /`);
  return { methods, path: pathPattern(o.path, at), text: `${mtext}${o.path}` };
}

/** `- ws: 'order.*'`: websocket-API methods by name; `*` stands for any text (dots included). */
function wsEntry(o: Record<string, unknown>, at: string): AllowEntry {
  if (Object.keys(o).length > 1) throw new UsageError(`${at}: a ws entry takes no other key (websocket-API methods have no HTTP method or path)`);
  if (typeof o.ws !== 'string' || !/^[A-Za-z0-9.*]{1,64}$/.test(o.ws)) {
    throw new UsageError(`${at}: ws must be a websocket-API method name or a pattern with * (letters, digits, '.', '*'), e.g. 'order.*'`);
  }
  return { methods: null, ws: new RegExp(`^${o.ws.replace(/\./g, '\\.').replace(/\*/g, '.*')}$`), text: `ws ${o.ws}` };
}

/**
 * Whether a token may read the account's user data (listen keys, their streams, user-data
 * subscriptions): it names the user-data right, or its allow-list is full (an entry '* /**' and no
 * method restriction), which includes everything.
 */
export function allowsUserData(t: TokenEntry): boolean {
  return t.rights.has('user-data') || (t.methods === null && t.allow.some((a) => a.methods === null && /^(\*\s+)?\/\*\*$/.test(a.text)));
}

/** Whether a token may call a websocket-API method (its `ws:` entries). */
export function allowsWsMethod(t: TokenEntry, method: string): boolean {
  return t.allow.some((a) => a.ws?.test(method) === true);
}

function rightSet(v: unknown, at: string): Set<Right> {
  if (v === undefined || v === null) return new Set();
  if (!Array.isArray(v)) throw new UsageError(`${at} must be a list; valid rights: ${RIGHTS.join(', ')}`);
  const out = new Set<Right>();
  for (const x of v) {
    if (!(RIGHTS as readonly unknown[]).includes(x)) throw new UsageError(`${at}: unknown right "${String(x).slice(0, 32)}"; valid: ${RIGHTS.join(', ')}`);
    out.add(x as Right);
  }
  return out;
}

function methodSet(v: unknown, at: string): Set<string> | null {
  if (v === undefined || v === null || v === '*') return null;
  const list = typeof v === 'string' ? v.split(',') : v;
  if (!Array.isArray(list) || !list.length) throw new UsageError(`${at} must be a list of HTTP methods`);
  const out = new Set<string>();
  for (const x of list) {
    const m = String(x).trim().toUpperCase();
    if (m === '*') return null;
    if (!(METHODS as readonly string[]).includes(m)) throw new UsageError(`${at}: unknown method "${String(x)}"; valid: ${METHODS.join(', ')}, *`);
    out.add(m);
  }
  return out;
}

/** "/api/v3/*" → one path segment; "/sapi/**" → any depth. Everything else matches literally. */
export function pathPattern(p: string, at = 'pattern'): RegExp {
  if (!p.startsWith('/')) throw new UsageError(`${at}: path pattern must start with /`);
  const re = p.split(/(\*\*|\*)/).map((part) => (part === '**' ? '.*' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${re}$`);
}
