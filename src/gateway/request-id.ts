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

/** A random (version 4) UUID, RFC 9562 §5.4. */
export function newRequestId(): string {
  const at = draw(16);
  POOL[at + 6] = (POOL[at + 6] & 0x0f) | 0x40;
  POOL[at + 8] = (POOL[at + 8] & 0x3f) | 0x80;
  const h = POOL.toString('hex', at, at + 16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** A new trace: random trace and span ids, sampled (flags 01). */
export function newTraceparent(): string {
  const at = draw(24);
  const hex = POOL.toString('hex', at, at + 24); // one conversion for both ids
  const trace = hex.slice(0, 32);
  const span = hex.slice(32);
  // All-zero ids are invalid (W3C Trace Context §3.2.2.3); at 2^-128 odds, still never send one.
  return trace === ZERO_TRACE || span === ZERO_SPAN ? newTraceparent() : `00-${trace}-${span}-01`;
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
