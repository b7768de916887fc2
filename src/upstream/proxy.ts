// Forward a request to an upstream over a keep-alive pool and write its answer to the client.
// The path and query string go out exactly as received: clients sign the exact text.
// Built on undici's dispatch() handler API rather than request(): no Readable stream and async
// iterator per answer, which at this request size is a large share of the proxy's CPU.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { Agent, errors, type Dispatcher } from 'undici';
import { GatewayError } from '../gateway/errors.js';

/** RFC 9110 §7.6.1 hop-by-hop headers, plus those the transport sets itself. */
const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer',
  'transfer-encoding', 'upgrade', 'host', 'content-length', 'expect',
]);

/** Upstream answers up to this size (with a known length) are buffered and written in one go. */
const BUFFER_LIMIT = 256 * 1024;

export interface UpstreamRequest {
  method: string;
  /** Raw path and query string as received. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer | null;
  /** Extra request headers to drop (e.g. the gateway's own Authorization). */
  drop?: ReadonlySet<string>;
}

export interface ProxyOptions {
  /** Give up on an upstream answer after this long (headers, or a pause in the body). */
  timeoutMs: number;
  connections?: number;
}

/** The client went away: nothing to answer any more. */
class ClientGone extends Error {
  override name = 'AbortError';
}

export class UpstreamProxy {
  private agent: Agent;

  constructor(opts: ProxyOptions) {
    this.agent = new Agent({
      connections: opts.connections ?? 128,
      keepAliveTimeout: 30_000,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      connect: { timeout: Math.min(opts.timeoutMs, 10_000) },
    });
  }

  /**
   * Send `req` to `base` and write the upstream's status, end-to-end headers (plus `own`) and body
   * to `res`. Rejects with a GatewayError (502/504) when no answer could be started, so the caller
   * can answer in the service's envelope; once the answer started, a failure just ends the socket.
   */
  forward(base: URL, req: UpstreamRequest, res: ServerResponse, own: Record<string, string>): Promise<void> {
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (v !== undefined && !HOP_BY_HOP.has(k) && !req.drop?.has(k)) headers[k] = v;
    }
    const prefix = base.pathname === '/' ? '' : base.pathname.replace(/\/$/, '');
    const head = req.method === 'HEAD';
    return new Promise<void>((resolve, reject) => {
      let controller: Dispatcher.DispatchController | undefined;
      let status = 0;
      let out: Record<string, string | string[] | number> = {};
      let chunks: Buffer[] | null = null;
      let started = false;
      const onClose = () => { if (!res.writableFinished) controller?.abort(new ClientGone()); };
      res.once('close', onClose);
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(c) { controller = c; },
        onResponseStart(c, statusCode, upstreamHeaders) {
          if (statusCode < 200) return; // informational: the final answer follows
          status = statusCode;
          out = {};
          for (const [k, v] of Object.entries(upstreamHeaders)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
          Object.assign(out, own);
          const length = Number(upstreamHeaders['content-length'] ?? NaN);
          if (head) {
            if (length >= 0) out['content-length'] = length;
          } else if (length <= BUFFER_LIMIT) {
            chunks = [];
            return;
          } else if (length >= 0) out['content-length'] = length;
          res.writeHead(status, out); // large or unknown length: stream it through
          started = true;
          void c;
        },
        onResponseData(c, chunk) {
          if (chunks) chunks.push(chunk);
          else if (!res.write(chunk)) {
            c.pause(); // a slow client: stop reading the upstream until it drains
            res.once('drain', () => c.resume());
          }
        },
        onResponseEnd() {
          res.off('close', onClose);
          if (chunks) {
            const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
            res.writeHead(status, { ...out, 'content-length': body.length });
            res.end(body);
          } else res.end();
          resolve();
        },
        onResponseError(_c, err) {
          res.off('close', onClose);
          if (err instanceof ClientGone) return reject(err);
          if (started) {
            res.destroy(); // the answer had begun: cut it rather than send a wrong one
            return resolve();
          }
          reject(upstreamError(err, base));
        },
      };
      this.agent.dispatch({
        origin: base.origin,
        path: prefix + req.url,
        method: req.method as Dispatcher.HttpMethod,
        headers,
        body: req.body && req.body.length ? req.body : null,
      }, handler);
    });
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
