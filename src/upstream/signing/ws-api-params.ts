// Sign a websocket-API request's params the way the exchange's own client does (@binance/common
// buildWebsocketAPIMessage + RequestSigner): add apiKey and timestamp (and recvWindow when
// configured), sort the params by name, sign `name=encodeURIComponent(value)&…` (arrays and
// objects as their JSON text), and add `signature`: HMAC as lower-case hex, RSA and Ed25519 as
// plain base64 (a JSON value, not a URL: no percent-encoding, unlike REST).
import { scalarText, writeJson } from '../exact-json.js';
import type { Signer } from './signers.js';

export interface WsSignOptions {
  apiKey: string;
  /** Milliseconds since the epoch. */
  now: number;
  /** recvWindow to add unless the client sent one. */
  recvWindow?: string;
}

/**
 * The text the upstream verifies: every param but `signature`, sorted by name. A number is signed as
 * the frame carries it (an ExactNumber's own text: 9007199254740993, 1.10), never as a double.
 */
export function wsSignaturePayload(params: Readonly<Record<string, unknown>>): string {
  const pairs: string[] = [];
  for (const name of Object.keys(params).sort()) {
    const v = params[name];
    if (name === 'signature' || v === undefined || v === null) continue;
    pairs.push(`${name}=${encodeURIComponent(scalarText(v) ?? writeJson(v))}`);
  }
  return pairs.join('&');
}

/** The params of a SIGNED request: the client's (a copy), with apiKey, timestamp, recvWindow and signature, sorted. */
export function signWsParams(params: Readonly<Record<string, unknown>>, signer: Signer, opts: WsSignOptions): Record<string, unknown> {
  const all: Record<string, unknown> = { ...params, apiKey: opts.apiKey };
  all.timestamp ??= opts.now;
  if (opts.recvWindow !== undefined) all.recvWindow ??= Number(opts.recvWindow);
  const sorted: Record<string, unknown> = {};
  for (const name of Object.keys(all).sort()) sorted[name] = all[name];
  // The signers return REST's URL-ready text; only base64's '+', '/' and '=' were percent-encoded.
  sorted.signature = decodeURIComponent(signer.sign(wsSignaturePayload(sorted)));
  return sorted;
}
