// Who a request is, across the gateway and its upstream: an X-Request-Id (the client's when it is
// well-formed, else a new one) and a W3C trace context (the client's traceparent when valid, else a
// new trace). Both are echoed/forwarded so the client, the gateway's access line and the upstream's
// logs can be joined on one id.
import { randomFillSync } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Kept on the request: its identity, and when it was handed to the upstream (if it was). */
export interface RequestIdentity {
  id: string;
  traceparent: string;
  /** performance.now() when the upstream dispatch began; set by the pipeline's forward stage. */
  upstreamAt?: number;
  /** performance.now() on arrival, kept here for answers written outside the adapter (websocket upgrades). */
  arrived?: number;
}

const IDENTITY = Symbol('gateway.identity');
type Identified = IncomingMessage & { [IDENTITY]?: RequestIdentity };

/** A client's id is logged and forwarded as is, so only a short token of safe characters is taken. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** version-traceid-parentid-flags (W3C Trace Context §3.2); version ff is invalid, all-zero ids are invalid. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

export function validTraceparent(v: string | undefined): boolean {
  const m = v === undefined ? null : TRACEPARENT.exec(v);
  if (!m) return false;
  const [, version, trace, parent, , rest] = m;
  if (version === 'ff' || /^0+$/.test(trace) || /^0+$/.test(parent)) return false;
  return version !== '00' || rest === undefined; // version 00 has exactly four fields
}

// Random bytes for ids, drawn from a pool refilled in one call per 1 024 requests: a call per
// request (or randomUUID's own 128-id cache) costs more than the hex it yields.
const POOL = Buffer.alloc(40 * 1024);
let poolAt = POOL.length;

function draw(n: number): number {
  if (poolAt + n > POOL.length) {
    randomFillSync(POOL);
    poolAt = 0;
  }
  const at = poolAt;
  poolAt += n;
  return at;
}

// Ids are typed as ASCII into one scratch buffer and read back as a single flat string: hex
// slices joined by a template made a string of pieces, which the header checks, the request head
// and the answer's head each had to walk (the two ids cost ~2.5× as much that way).
const HEX = Buffer.from('0123456789abcdef', 'latin1');
const TEXT = Buffer.alloc(64);
const DASH = 45;

/** Type POOL[from, to) as hex into TEXT at `pos`; returns the position after it. */
function hexOut(from: number, to: number, pos: number): number {
  for (let i = from; i < to; i++) {
    const b = POOL[i];
    TEXT[pos++] = HEX[b >> 4];
    TEXT[pos++] = HEX[b & 15];
  }
  return pos;
}

/** A random (version 4) UUID, RFC 9562 §5.4. */
export function newRequestId(): string {
  const at = draw(16);
  POOL[at + 6] = (POOL[at + 6] & 0x0f) | 0x40;
  POOL[at + 8] = (POOL[at + 8] & 0x3f) | 0x80;
  let p = hexOut(at, at + 4, 0);
  TEXT[p++] = DASH;
  p = hexOut(at + 4, at + 6, p);
  TEXT[p++] = DASH;
  p = hexOut(at + 6, at + 8, p);
  TEXT[p++] = DASH;
  p = hexOut(at + 8, at + 10, p);
  TEXT[p++] = DASH;
  p = hexOut(at + 10, at + 16, p);
  return TEXT.toString('latin1', 0, p);
}

const allZero = (from: number, to: number) => {
  let any = 0;
  for (let i = from; i < to; i++) any |= POOL[i];
  return any === 0;
};

/** A new trace: random trace and span ids, sampled (flags 01): 00-<32 hex>-<16 hex>-01. */
export function newTraceparent(): string {
  const at = draw(24);
  // All-zero ids are invalid (W3C Trace Context §3.2.2.3); at 2^-128 odds, still never send one.
  if (allZero(at, at + 16) || allZero(at + 16, at + 24)) return newTraceparent();
  TEXT[0] = TEXT[1] = 48; // '00'
  TEXT[2] = DASH;
  let p = hexOut(at, at + 16, 3);
  TEXT[p++] = DASH;
  p = hexOut(at + 16, at + 24, p);
  TEXT[p++] = DASH;
  TEXT[p++] = 48;
  TEXT[p++] = 49; // '01'
  return TEXT.toString('latin1', 0, p);
}

/**
 * Give the request its identity. The caller puts the id on the answer: the pipeline among its own
 * headers (one writeHead, no setHeader merge on the hot path), other answers with setHeader, a
 * websocket upgrade in its 101 or refusal (which also keeps its `arrived` here).
 */
export function assignIdentity(req: IncomingMessage, arrived?: number): RequestIdentity {
  const given = req.headers['x-request-id'];
  const tp = req.headers.traceparent;
  const identity: RequestIdentity = {
    id: typeof given === 'string' && REQUEST_ID.test(given) ? given : newRequestId(),
    traceparent: typeof tp === 'string' && validTraceparent(tp) ? tp : newTraceparent(),
    arrived,
  };
  (req as Identified)[IDENTITY] = identity;
  return identity;
}

/** Give the request its identity and echo the id on whatever answer it gets (setHeader merges into writeHead). */
export function identify(req: IncomingMessage, res: ServerResponse): RequestIdentity {
  const identity = assignIdentity(req);
  res.setHeader('x-request-id', identity.id);
  return identity;
}

/** The identity of a request node's parser refused before there was a request object: always new. */
export function newIdentity(): RequestIdentity {
  return { id: newRequestId(), traceparent: newTraceparent() };
}

export function identityOf(req: IncomingMessage): RequestIdentity | undefined {
  return (req as Identified)[IDENTITY];
}
