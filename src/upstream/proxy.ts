// Forward a request to an upstream over a keep-alive pool and write its answer to the client.
// The path and query string go out exactly as received: clients sign the exact text.
// Built on undici's dispatch() handler API rather than request(): no Readable stream and async
// iterator per answer, which at this request size is a large share of the proxy's CPU.
// Failures are this layer's own coded errors (as undici's are); the gateway maps them to answers.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { Agent, Dispatcher, errors as UndiciErrors } from 'undici';
import { appendVary, dropHopByHop } from './headers.js';

// undici loads on the first forward, or when warm() is called once the gateway listens, never on
// the way to the listening socket; and only the two parts used here: the package's index loads
// ~110 modules (fetch, websocket, caches, mocks: ~80 ms here), Agent and its errors ~23 (~25 ms).
// undici has no "exports" map; these are its own lib paths, pinned by package-lock.json.
interface Undici { Agent: typeof Agent; errors: typeof UndiciErrors }
let undici: Undici | undefined;
let loading: Promise<Undici> | undefined;
const loadUndici = () => (loading ??= Promise.resolve().then(() => {
  const load = createRequire(import.meta.url);
  return (undici = { Agent: load('undici/lib/dispatcher/agent.js') as typeof Agent, errors: load('undici/lib/core/errors.js') as typeof UndiciErrors });
}));

/** Upstream answers up to this size (with a known length) are buffered and written in one go. */
const BUFFER_LIMIT = 256 * 1024;

/** Default of --migrated-answer-limit: the largest answer held in memory to be rewritten (8 MiB). */
export const DEFAULT_REWRITE_LIMIT = 8 * 1024 * 1024;

export interface UpstreamRequest {
  method: string;
  /** Raw path and query string as received. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer | null;
  /** Extra request headers to drop (e.g. the gateway's own Authorization). */
  drop?: ReadonlySet<string>;
  /** Headers to set after filtering (X-Forwarded-For, Forwarded). */
  add?: Record<string, string>;
  /** Changes the answer's end-to-end headers before they reach the client (e.g. Link URLs that point back at the gateway). */
  answerHeaders?(headers: Record<string, string | string[] | number>): void;
  /** Told the final status and headers as the upstream sent them, before anything reaches the client. */
  onAnswer?(status: number, headers: IncomingHttpHeaders): void;
  /**
   * Rewrites the whole answer before it is sent (the answer is then buffered, up to `rewriteLimit`):
   * its status and body; a null body sends none (a 204 or 304), without Content-Length or Content-Type.
   */
  rewrite?(status: number, body: Buffer): { status: number; body: Buffer | null };
  /** Shown the whole body of the answers it wants (the gateway's drift count of the upstream's "no such …" answers). */
  watch?: AnswerWatch;
  /**
   * Bytes of an answer to rewrite held in memory at most (default DEFAULT_REWRITE_LIMIT): a longer
   * answer is cut off at the upstream and the forward fails with UPSTREAM_TOO_LARGE (nothing was sent
   * to the client yet).
   */
  rewriteLimit?: number;
}

/**
 * Watches some answers of the upstream whole: an answer of a status it wants is buffered (up to
 * the buffering limit: error answers are small) and, once complete, shown to seen() before it is sent.
 */
export interface AnswerWatch {
  wants(status: number): boolean;
  /** Must not throw; `req` is the request as forwarded. */
  seen(status: number, body: Buffer, req: UpstreamRequest): void;
}

/**
 * How the caller cancels a forward: set `gone` before dispatch and the request is never sent
 * (undici may hold it in its queue while the pool is busy); after dispatch, `cancel` aborts it.
 */
export interface Cancellation {
  gone: boolean;
  reason?: unknown;
  cancel?: (reason: unknown) => void;
}

/** An upstream base URL taken apart once, so a forward reads no URL getters. */
export interface UpstreamTarget {
  /** scheme://host:port */
  origin: string;
  /** The base's path without its trailing slash ('' for '/'), put before every forwarded path. */
  prefix: string;
  /** host:port, for messages. */
  host: string;
}

export function upstreamTarget(base: URL): UpstreamTarget {
  return { origin: base.origin, prefix: base.pathname === '/' ? '' : base.pathname.replace(/\/$/, ''), host: base.host };
}

export interface ProxyOptions {
  /** Backstop for a silent upstream; the gateway's own deadline is the precise one. */
  timeoutMs: number;
  connections?: number;
}

export type UpstreamErrorCode = 'UPSTREAM_TIMEOUT' | 'UPSTREAM_UNREACHABLE' | 'UPSTREAM_BAD_ANSWER' | 'UPSTREAM_TOO_LARGE';

export class UpstreamError extends Error {
  constructor(readonly code: UpstreamErrorCode, message: string) {
    super(message);
    this.name = 'UpstreamError';
  }
}

export class UpstreamProxy {
  private agent: Agent | undefined;

  constructor(private readonly opts: ProxyOptions) {}

  /** Load undici and open the pool now (after listening), so the first forward does not wait for it. */
  async warm(): Promise<void> {
    await loadUndici();
    this.pool();
  }

  private pool(): Agent {
    return (this.agent ??= new undici!.Agent({
      connections: this.opts.connections ?? 256,
      keepAliveTimeout: 30_000,
      headersTimeout: this.opts.timeoutMs + 1000,
      bodyTimeout: this.opts.timeoutMs + 1000,
      connect: { timeout: Math.min(this.opts.timeoutMs, 10_000) },
    }));
  }

  /**
   * Send `req` to `base` and write the upstream's status, end-to-end headers (plus `own`) and body
   * to `res`. Rejects with an UpstreamError when no answer could be started (the caller answers in
   * the service's envelope), or with the cancellation's reason; once the answer started, a failure
   * just ends the socket.
   */
  forward(base: UpstreamTarget, req: UpstreamRequest, res: ServerResponse, own: Record<string, string>, cancellation: Cancellation): Promise<void> {
    if (!undici) return loadUndici().then(() => this.forward(base, req, res, own, cancellation));
    const agent = this.pool();
    const headers = dropHopByHop(req.headers, req.drop);
    if (req.add) Object.assign(headers, req.add);
    const answer = new Answer(base, req, res, own, cancellation);
    agent.dispatch({
      origin: base.origin,
      path: base.prefix + req.url,
      method: req.method as Dispatcher.HttpMethod,
      headers,
      body: req.body && req.body.length ? req.body : null,
    }, answer);
    return answer.done;
  }

  close(): Promise<void> {
    return this.agent?.close() ?? Promise.resolve();
  }
}

/**
 * One forward's answer, as undici's dispatch handler: a class, so a forward allocates one object
 * with its methods on the prototype rather than an object, five closures and a promise executor.
 */
class Answer implements Dispatcher.DispatchHandler {
  readonly done: Promise<void>;
  private resolve!: () => void;
  private reject!: (e: unknown) => void;
  private status = 0;
  /** The answer's headers, set when the final status arrives (nothing reads them before). */
  private out!: Record<string, string | string[] | number>;
  private chunks: Buffer[] | null = null;
  /** Bytes in `chunks`. */
  private held = 0;
  private started = false;

  constructor(
    private readonly base: UpstreamTarget,
    private readonly req: UpstreamRequest,
    private readonly res: ServerResponse,
    private readonly own: Record<string, string>,
    private readonly cancellation: Cancellation,
  ) {
    this.done = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  onRequestStart(c: Dispatcher.DispatchController): void {
    const { cancellation } = this;
    // Still queued when the client left or the deadline passed: never send it.
    if (cancellation.gone) return c.abort(cancellation.reason as Error);
    cancellation.cancel = (reason) => c.abort(reason as Error);
  }

  onResponseStart(c: Dispatcher.DispatchController, statusCode: number, upstreamHeaders: Record<string, string | string[] | undefined>): void {
    if (statusCode >= 100 && statusCode < 200) return; // informational: the final answer follows
    if (statusCode > 599 || statusCode < 100) {
      return c.abort(new UpstreamError('UPSTREAM_BAD_ANSWER', `upstream ${this.base.host} answered with invalid status ${statusCode}`));
    }
    this.status = statusCode;
    this.req.onAnswer?.(statusCode, upstreamHeaders as IncomingHttpHeaders);
    const out: Record<string, string | string[] | number> = (this.out = dropHopByHop(upstreamHeaders as IncomingHttpHeaders));
    this.req.answerHeaders?.(out);
    mergeOwn(out, this.own);
    const length = Number(upstreamHeaders['content-length'] ?? NaN);
    if (this.req.method === 'HEAD') {
      if (length >= 0) out['content-length'] = length;
    } else if (this.req.rewrite && length > this.rewriteLimit()) {
      return c.abort(this.tooLarge(`${length} bytes`)); // refused before a byte of it is read
    } else if (length <= BUFFER_LIMIT || this.req.rewrite || (Number.isNaN(length) && this.req.watch?.wants(statusCode))) {
      this.chunks = [];
      return;
    } else if (length >= 0) out['content-length'] = length;
    this.res.writeHead(statusCode, out); // large or unknown length: stream it through
    this.started = true;
  }

  onResponseData(c: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.chunks) {
      this.held += chunk.length;
      // An answer of unknown length that outgrows the limit: stop reading it (memory stays bounded).
      if (this.req.rewrite && this.held > this.rewriteLimit()) return c.abort(this.tooLarge(`over ${this.held} bytes`));
      this.chunks.push(chunk);
      // A watched answer of unknown length that outgrows the buffer: not an error answer worth
      // reading whole; it streams through from here, unwatched (memory stays bounded).
      if (!this.req.rewrite && this.held > BUFFER_LIMIT) {
        this.res.writeHead(this.status, this.out);
        this.started = true;
        const held = this.chunks;
        this.chunks = null;
        for (const b of held) this.res.write(b);
      }
    } else if (!this.res.write(chunk)) {
      c.pause(); // a slow client: stop reading the upstream until it drains
      this.res.once('drain', () => c.resume());
    }
  }

  onResponseEnd(): void {
    this.cancellation.cancel = undefined;
    const { chunks, res } = this;
    if (chunks) {
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      if (this.status >= 400 && this.req.watch?.wants(this.status)) this.req.watch.seen(this.status, body, this.req);
      if (this.req.rewrite) return this.endRewritten(body);
      this.out['content-length'] = body.length;
      res.writeHead(this.status, this.out);
      res.end(body);
    } else res.end();
    this.resolve();
  }

  /** The rewritten answer: its status, and its body or none (a 204 or 304: no Content-Length, no Content-Type). */
  private endRewritten(body: Buffer): void {
    const out = this.req.rewrite!(this.status, body);
    if (out.body === null) delete this.out['content-type'];
    else this.out['content-length'] = out.body.length;
    this.res.writeHead(out.status, this.out);
    this.res.end(out.body ?? undefined);
    this.resolve();
  }

  private rewriteLimit(): number {
    return this.req.rewriteLimit ?? DEFAULT_REWRITE_LIMIT;
  }

  private tooLarge(size: string): UpstreamError {
    this.chunks = null;
    return new UpstreamError('UPSTREAM_TOO_LARGE', `upstream ${this.base.host} answered ${size}, more than the ${this.rewriteLimit()} bytes (--migrated-answer-limit) the gateway holds to carry a migrated answer back to the client's release; the request was forwarded, its answer is not passed on`);
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
    const { cancellation } = this;
    cancellation.cancel = undefined;
    if (cancellation.gone) return this.reject(cancellation.reason ?? err);
    if (this.started) {
      this.res.destroy(); // the answer had begun: cut it rather than send a wrong one
      return this.resolve();
    }
    this.reject(upstreamError(err, this.base));
  }
}

/** The gateway's own headers win, except Vary, which lists what both vary on (appended, never replaced). */
function mergeOwn(out: Record<string, string | string[] | number>, own: Record<string, string>): void {
  for (const k in own) {
    out[k] = k === 'vary' && out.vary !== undefined ? appendVary(String(out.vary), own.vary) : own[k];
  }
}

/** Map transport failures to coded errors; never echo the request (its query may carry a signature). */
export function upstreamError(e: unknown, base: UpstreamTarget): unknown {
  if (e instanceof UpstreamError) return e;
  const { errors } = undici!;
  if (e instanceof errors.HeadersTimeoutError || e instanceof errors.BodyTimeoutError) {
    return new UpstreamError('UPSTREAM_TIMEOUT', `upstream ${base.host} did not answer in time`);
  }
  if (e instanceof errors.ConnectTimeoutError) {
    return new UpstreamError('UPSTREAM_TIMEOUT', `upstream ${base.host} did not accept the connection in time`);
  }
  if (e instanceof errors.RequestAbortedError || (e as Error)?.name === 'AbortError') return e;
  const code = (e as { code?: string })?.code ?? (e as { cause?: { code?: string } })?.cause?.code;
  return new UpstreamError('UPSTREAM_UNREACHABLE', `upstream ${base.host} unreachable${code ? ` (${code})` : ''}`);
}
