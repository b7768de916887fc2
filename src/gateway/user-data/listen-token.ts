// A listen token (a bridge step's `token:`, changes.yaml): obtained by the gateway with its own API key
// from the REST operation the catalogue names (the API key in the service's key header, the account's
// params as a form body, no signature: the operation is USER_STREAM), and read from its answer where
// the step's template shows "<token>" and "<expiresAt>". The exchange's answer is read with bounds
// (size, time, shape): a hostile or broken one is a failure, never a token. A token is a credential:
// it is never logged.
import { placeholderPath } from '../../catalogue/changes/bridges.js';
import type { TokenSource } from '../../catalogue/changes/types.js';
import type { Secret } from '../../upstream/signing/secret.js';
import { GatewayError } from '../errors.js';

export interface TokenGrant {
  token: string;
  /** Epoch ms after which the upstream ends what the token authorised. */
  expiresAt: number;
}

export interface TokenEndpoint {
  /** The operation's URL (REST base and path) and method. */
  url: string;
  method: string;
  /** The service's API-key header, and the gateway's key. */
  apiKeyHeader: string;
  apiKey: Secret;
  source: TokenSource;
  timeoutMs: number;
  /** Tests only: params sent with every token request besides the account's (e.g. a short validity). */
  extraParams?: Readonly<Record<string, string>>;
}

/** The upstream refused the account the client named (a 400 of its own): answered to the client as it came. */
export class TokenRefused extends Error {
  constructor(readonly status: number, readonly body: unknown) {
    super(`refused ${status}`);
    this.name = 'TokenRefused';
  }
}

/** The longest token answer read: the exchange's is about 120 bytes. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** The longest token accepted (the exchange's are ~70 characters). */
const MAX_TOKEN_LENGTH = 1024;

/** A new token for the account `params` name; a GatewayError (502/504) or TokenRefused when none comes. */
export async function obtainToken(e: TokenEndpoint, params: Readonly<Record<string, string>>): Promise<TokenGrant> {
  const what = `${e.method} ${new URL(e.url).pathname}`;
  let res: Response;
  let text: string;
  try {
    res = await fetch(e.url, {
      method: e.method,
      headers: { [e.apiKeyHeader]: e.apiKey.reveal(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...params, ...e.extraParams }).toString(),
      signal: AbortSignal.timeout(e.timeoutMs),
      redirect: 'error',
    });
    text = await readCapped(res, what);
  } catch (err) {
    if (err instanceof GatewayError) throw err;
    const timedOut = (err as Error).name === 'TimeoutError';
    throw new GatewayError(timedOut ? 'timeout' : 'upstream', `The gateway could not obtain a listen token (${what}): ${timedOut ? `no answer within ${e.timeoutMs} ms` : 'the upstream is unreachable'}.`);
  }
  let body: unknown;
  try { body = JSON.parse(text); } catch { body = undefined; }
  if (res.status === 400 && body && typeof body === 'object') throw new TokenRefused(400, body);
  if (res.status !== 200) {
    const m = body as { code?: unknown; msg?: unknown } | undefined;
    const detail = m && typeof m === 'object' ? ` ${String(m.code ?? '')} ${String(m.msg ?? '').slice(0, 200)}` : '';
    throw new GatewayError('upstream', `The upstream refused the gateway a listen token (${what}): ${res.status}${detail}.`);
  }
  const token = valueAt(body, placeholderPath(e.source.answer, 'token'));
  const expiresAt = valueAt(body, placeholderPath(e.source.answer, 'expiresAt'));
  if (typeof token !== 'string' || !token || token.length > MAX_TOKEN_LENGTH || typeof expiresAt !== 'number' || !Number.isFinite(expiresAt) || expiresAt <= Date.now()) {
    throw new GatewayError('upstream', `The upstream's answer to ${what} carries no usable listen token and expiry.`);
  }
  return { token, expiresAt };
}

async function readCapped(res: Response, what: string): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      throw new GatewayError('upstream', `The upstream's answer to ${what} is larger than ${MAX_ANSWER_BYTES} bytes; no listen token was read from it.`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function valueAt(body: unknown, path: readonly string[] | undefined): unknown {
  if (!path) return undefined;
  let v = body;
  for (const k of path) v = v && typeof v === 'object' && Object.hasOwn(v, k) ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}
