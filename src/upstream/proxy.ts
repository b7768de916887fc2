// Forward a request to an upstream over a keep-alive pool and hand back its answer as a stream.
// The path and query string go out exactly as received: clients sign the exact text.
import type { IncomingHttpHeaders } from 'node:http';
import type { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';
import { Agent, errors } from 'undici';
import { GatewayError } from '../gateway/errors.js';

/** RFC 9110 §7.6.1 hop-by-hop headers, plus those the transport sets itself. */
const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer',
  'transfer-encoding', 'upgrade', 'host', 'content-length', 'expect',
]);

export interface UpstreamRequest {
  method: string;
  /** Raw path and query string as received. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer | null;
  /** Emits 'abort' when the client goes away (undici accepts an EventEmitter as signal). */
  signal: AbortSignal | EventEmitter;
  /** Extra request headers to drop (e.g. the gateway's own Authorization). */
  drop?: ReadonlySet<string>;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: Readable;
}

export interface ProxyOptions {
  /** Give up on an upstream answer after this long (headers, or a pause in the body). */
  timeoutMs: number;
  connections?: number;
}

export class UpstreamProxy {
  private agent: Agent;

  constructor(private opts: ProxyOptions) {
    this.agent = new Agent({
      connections: opts.connections ?? 128,
      keepAliveTimeout: 30_000,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      connect: { timeout: Math.min(opts.timeoutMs, 10_000) },
    });
  }

  async forward(base: URL, req: UpstreamRequest): Promise<UpstreamResponse> {
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (v === undefined || HOP_BY_HOP.has(k) || req.drop?.has(k)) continue;
      headers[k] = v;
    }
    const prefix = base.pathname === '/' ? '' : base.pathname.replace(/\/$/, '');
    try {
      const res = await this.agent.request({
        origin: base.origin,
        path: prefix + req.url,
        method: req.method as 'GET',
        headers,
        body: req.body && req.body.length ? req.body : null,
        signal: req.signal,
      });
      const out: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(res.headers)) {
        if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
      }
      const length = res.headers['content-length'];
      if (typeof length === 'string') out['content-length'] = length;
      return { status: res.statusCode, headers: out, body: res.body };
    } catch (e) {
      throw upstreamError(e, base);
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** Map transport failures to gateway answers; never echo the request (its query may carry a signature). */
export function upstreamError(e: unknown, base: URL): unknown {
  if (e instanceof errors.RequestAbortedError || (e as Error)?.name === 'AbortError') return e;
  if (e instanceof errors.HeadersTimeoutError || e instanceof errors.BodyTimeoutError) {
    return new GatewayError(504, 'timeout', `upstream ${base.host} did not answer in time`);
  }
  if (e instanceof errors.ConnectTimeoutError) {
    return new GatewayError(504, 'timeout', `upstream ${base.host} did not accept the connection in time`);
  }
  const code = (e as { code?: string })?.code ?? (e as { cause?: { code?: string } })?.cause?.code;
  return new GatewayError(502, 'upstream', `upstream ${base.host} unreachable${code ? ` (${code})` : ''}`);
}
