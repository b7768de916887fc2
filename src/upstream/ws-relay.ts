// The websocket relay: one client connection joined to one upstream connection.
// Data frames pass unchanged both ways (text stays text, binary stays binary, same bytes, same
// order); control frames are relayed too (an upstream ping reaches the client and its pong goes
// back), so each end's keep-alive sees the other end. Close codes are propagated. The gateway never
// buffers without bound: every frame it writes to a peer (relayed data, its own answers, relayed
// pings and pongs) goes through that peer's Outbox, which counts what the peer has not taken yet.
// A client that reads slower than the gateway writes to it is closed (1008) once more than
// `maxBufferedBytes` wait for it; a client that writes faster than the upstream reads is not read
// (its frames wait in its own socket) until the upstream has taken half of what waits for it.
import type { IncomingMessage } from 'node:http';
import WebSocket, { type RawData } from 'ws';

/**
 * undefined: forward the client frame; a string: answer the client with it instead; `forward`:
 * send these bytes upstream in its place, as text (a frame the gateway signed).
 */
export type Inspect = (data: Buffer, isBinary: boolean) => string | { forward: Buffer | string } | undefined;

export interface UpstreamOptions {
  /** Upstream handshake timeout. */
  timeoutMs: number;
  /** Subprotocols the client asked for. */
  protocols?: string[];
  /** Largest message accepted from the upstream. */
  maxPayload?: number;
  /** Handshake headers to send (the request id and trace context). */
  headers?: Record<string, string>;
}

/** The upstream refused or could not be reached; `status` is its HTTP answer when it gave one. */
export class UpstreamConnectError extends Error {
  constructor(message: string, readonly status?: number) {
    super(message);
    this.name = 'UpstreamConnectError';
  }
}

/**
 * Open the upstream connection. Resolves once it is open, paused: frames it sends before the relay
 * starts wait in the socket, not in the void.
 */
export function connectUpstream(url: string, opts: UpstreamOptions): { socket: WebSocket; opened: Promise<WebSocket> } {
  const socket = new WebSocket(url, opts.protocols ?? [], {
    handshakeTimeout: opts.timeoutMs, perMessageDeflate: false, autoPong: false, maxPayload: opts.maxPayload,
    followRedirects: false, headers: opts.headers,
  });
  // 'close' follows every 'error'; errors after the handshake are the relay's to report as a close.
  socket.on('error', () => {});
  const opened = new Promise<WebSocket>((resolve, reject) => {
    const onUnexpected = (_req: unknown, res: IncomingMessage) => {
      res.resume();
      fail(new UpstreamConnectError(`upstream answered the websocket upgrade with HTTP ${res.statusCode}`, res.statusCode));
    };
    const onError = (e: Error) => fail(new UpstreamConnectError(`upstream websocket unreachable: ${e.message}`));
    // Closed before it opened (e.g. terminated by the gateway while connecting).
    const onClose = () => fail(new UpstreamConnectError('upstream websocket closed before it opened'));
    const off = () => {
      socket.off('unexpected-response', onUnexpected);
      socket.off('error', onError);
      socket.off('close', onClose);
    };
    const fail = (e: UpstreamConnectError) => {
      off();
      socket.terminate();
      reject(e);
    };
    socket.once('open', () => {
      socket.pause();
      off();
      resolve(socket);
    });
    socket.once('unexpected-response', onUnexpected);
    socket.once('error', onError);
    socket.once('close', onClose);
  });
  return { socket, opened };
}

export interface RelayOptions {
  /** Bytes allowed to wait for a slow client before it is closed with 1008. */
  maxBufferedBytes: number;
  /** Check a client frame before it is forwarded. */
  inspect?: Inspect;
  /** Rewrite an upstream frame before the client gets it (undefined: as it came); absent on stream connections. */
  inspectDown?: (data: Buffer, isBinary: boolean) => string | undefined;
  /** Called when the gateway closes a client that reads too slowly. */
  onSlowClient?(): void;
  /**
   * How long a client may stay held (not read, because the upstream has not taken what it sent)
   * before the connection is closed with 1008: back-pressure for a moment, never a stalled upstream
   * pinning a connection for good. Default 10 s.
   */
  maxHoldMs?: number;
  /** Called once when both sides are closed. */
  onEnd?(info: RelayEnd): void;
}

export interface RelayEnd {
  /** Close code and reason the client saw. */
  clientCode: number;
  clientReason: string;
  upstreamCode: number;
  /** Why the gateway closed the connection itself, if it did. */
  cause?: 'slow-client' | 'slow-upstream' | 'shutdown' | 'gone';
  framesUp: number;
  framesDown: number;
}

/** Close codes an endpoint may send (RFC 6455 §7.4; 1004–1006 and 1015 are reserved). */
export function sendableCode(code: number): boolean {
  return (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999);
}

/** A close reason fits in 123 bytes of UTF-8. */
function shortReason(reason: string | Buffer): string | Buffer {
  const b = typeof reason === 'string' ? Buffer.from(reason) : reason;
  if (b.length <= 123) return reason;
  let s = b.subarray(0, 120).toString('utf8');
  while (Buffer.byteLength(s) > 120) s = s.slice(0, -1); // a cut multi-byte character became U+FFFD
  return `${s}...`;
}

/** Close `ws` with the code the other side closed with (or a sendable stand-in). */
function closeLike(ws: WebSocket, code: number, reason: Buffer | string, fallback: number, fallbackReason: string): void {
  if (ws.readyState === WebSocket.CLOSED || ws.readyState === WebSocket.CLOSING) return;
  if (code === 1005) ws.close(); // the other side sent no code: send none either
  else if (sendableCode(code)) ws.close(code, shortReason(reason));
  else ws.close(fallback, fallbackReason);
}

const asBuffer = (d: RawData): Buffer => (Buffer.isBuffer(d) ? d : Array.isArray(d) ? Buffer.concat(d) : Buffer.from(d));

/**
 * What Node and ws keep per queued frame besides its bytes (write request, buffer views, callback):
 * measured at ~450 bytes on Node 20. Without it, a flood of empty pings or short error answers
 * towards a peer that does not read costs ~200 times the bytes bufferedAmount reports.
 */
const FRAME_OVERHEAD_BYTES = 512;

/**
 * Frames written to one peer and not yet handed to the kernel, in bytes plus a fixed overhead per
 * frame. ws's bufferedAmount counts the socket's queued bytes only, so a queue of tiny frames looks
 * empty; this count is what the limit is checked against.
 */
class Outbox {
  private queued = 0;

  constructor(
    readonly ws: WebSocket,
    private readonly limit: number,
    /** Called whenever a queued frame has left (the socket took it, or it failed with the socket). */
    private readonly onSent?: () => void,
  ) {}

  /** Bytes waiting for the peer, per-frame overhead included. */
  get pending(): number {
    return Math.max(this.queued, this.ws.bufferedAmount);
  }

  /** More than the limit waits for the peer. */
  get over(): boolean {
    return this.pending > this.limit;
  }

  send(data: Buffer | string, isBinary: boolean): void {
    this.track(Buffer.byteLength(data), (done) => this.ws.send(data, { binary: isBinary, compress: false }, done));
  }

  ping(data: Buffer): void {
    this.track(data.length, (done) => this.ws.ping(data, undefined, done));
  }

  pong(data: Buffer): void {
    this.track(data.length, (done) => this.ws.pong(data, undefined, done));
  }

  private track(bytes: number, write: (done: () => void) => void): void {
    // A frame for a peer that is not open is never written (ws would only count it); skip it.
    if (this.ws.readyState !== WebSocket.OPEN) return;
    const cost = bytes + FRAME_OVERHEAD_BYTES;
    this.queued += cost;
    write(() => {
      this.queued -= cost;
      this.onSent?.();
    });
  }
}

export class Relay {
  private cause?: RelayEnd['cause'];
  private clientClosed: { code: number; reason: string } | null = null;
  private upstreamClosed: { code: number } | null = null;
  private framesUp = 0;
  private framesDown = 0;
  /** Everything written to the client: over the limit, the client is too slow and is closed (1008). */
  private readonly toClient: Outbox;
  /** Everything written to the upstream: over the limit, the client is not read until it drains. */
  private readonly toUpstream: Outbox;
  /** Reading the client is paused because the upstream has not taken what it sent. */
  private clientHeld = false;
  private holdTimer: NodeJS.Timeout | undefined;
  /** Resolves when both sides are closed. */
  readonly done: Promise<void>;
  private finish!: () => void;

  constructor(
    readonly client: WebSocket,
    readonly upstream: WebSocket,
    private readonly opts: RelayOptions,
  ) {
    this.done = new Promise((resolve) => { this.finish = resolve; });
    const { inspect } = opts;
    this.toClient = new Outbox(client, opts.maxBufferedBytes);
    this.toUpstream = new Outbox(upstream, opts.maxBufferedBytes, () => this.upstreamTook());
    const open = (ws: WebSocket) => ws.readyState === WebSocket.OPEN;

    // Upstream → client: the hot path of market streams; no inspection.
    const { inspectDown } = opts;
    upstream.on('message', (data, isBinary) => {
      if (!open(client) || this.cause) return;
      this.framesDown++;
      const rewritten = inspectDown?.(data as Buffer, isBinary); // [version changes] an answer migrated down
      if (rewritten !== undefined) this.toClient.send(rewritten, false);
      else this.toClient.send(data as Buffer, isBinary);
      this.checkClient();
    });
    // Client → upstream: checked, then forwarded, or answered by the gateway. The answers are written
    // to the client like any other frame: a client that sends and never reads is a slow client.
    client.on('message', (raw, isBinary) => {
      if (!open(upstream) || this.cause) return;
      const data = asBuffer(raw);
      const answer = inspect?.(data, isBinary);
      if (typeof answer === 'string') {
        this.toClient.send(answer, false);
        this.checkClient();
        return;
      }
      this.framesUp++;
      if (answer) this.toUpstream.send(answer.forward, false); // [wssign] rewritten (signed) frame
      else this.toUpstream.send(data, isBinary);
      this.checkUpstream();
    });

    // Control frames, relayed through the same outboxes; answered here only when the other side is
    // not open. A pong may be left out (RFC 6455 §5.5.3 lets an endpoint answer only the latest ping).
    upstream.on('ping', (data) => {
      if (this.cause) return;
      if (open(client)) {
        this.toClient.ping(data);
        this.checkClient();
      } else if (!this.toUpstream.over) this.toUpstream.pong(data);
    });
    upstream.on('pong', (data) => {
      if (this.cause || !open(client)) return;
      this.toClient.pong(data);
      this.checkClient();
    });
    client.on('ping', (data) => {
      if (this.cause) return;
      if (open(upstream)) {
        this.toUpstream.ping(data);
        this.checkUpstream();
      } else if (open(client)) {
        this.toClient.pong(data);
        this.checkClient();
      }
    });
    client.on('pong', (data) => {
      if (this.cause || !open(upstream)) return;
      this.toUpstream.pong(data);
      this.checkUpstream();
    });

    upstream.on('close', (code, reason) => {
      this.upstreamClosed = { code };
      closeLike(client, code, reason, 1011, 'upstream connection lost');
      this.releaseClient(); // a held client could not read the answer to its close frame
      this.ended();
    });
    client.on('close', (code, reason) => {
      this.clientClosed = { code, reason: reason.toString('utf8') };
      closeLike(upstream, code, reason, 1001, 'client went away');
      this.ended();
    });
    // 'close' follows every 'error'; nothing more to do than not crash.
    upstream.on('error', () => {});
    client.on('error', () => {});

    upstream.resume();
    // The upstream may have gone between its handshake and now.
    if (upstream.readyState === WebSocket.CLOSED) {
      this.upstreamClosed = { code: 1006 };
      closeLike(client, 1006, '', 1011, 'upstream connection lost');
    }
  }

  /** Close both sides (gateway shutdown); terminate whatever has not closed after `graceMs`. */
  async shutdown(graceMs: number): Promise<void> {
    this.cause ??= 'shutdown';
    if (this.client.readyState === WebSocket.OPEN) this.client.close(1001, 'gateway shutting down');
    if (this.upstream.readyState === WebSocket.OPEN) this.upstream.close(1001, 'gateway shutting down');
    this.releaseClient();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.done, new Promise<void>((r) => { timer = setTimeout(r, graceMs); })]);
    clearTimeout(timer);
    this.client.terminate();
    this.upstream.terminate();
    await this.done;
  }

  /**
   * Close both sides because the gateway no longer serves what this connection relays (a reload
   * removed its stream): the client gets 1001 and `reason`. False if it was closing already.
   */
  closeGone(reason: string): boolean {
    if (this.cause || this.client.readyState !== WebSocket.OPEN) return false;
    this.cause = 'gone';
    this.client.close(1001, shortReason(reason));
    if (this.upstream.readyState === WebSocket.OPEN) this.upstream.close(1001, 'client closed by the gateway');
    this.releaseClient(); // a held client could not read its close frame
    return true;
  }

  /** After each write to the client: more than the limit waiting means the client is too slow. */
  private checkClient(): void {
    if (this.toClient.over && !this.cause) this.slowClient();
  }

  /**
   * After each write to the upstream: more than the limit waiting means the upstream reads slower
   * than the client writes; stop reading the client (its frames wait in its own socket) until the
   * upstream has taken half of it. Frames already read are still written: at most one socket read's
   * worth beyond the limit.
   */
  private checkUpstream(): void {
    if (this.clientHeld || !this.toUpstream.over) return;
    this.clientHeld = true;
    this.client.pause();
    this.holdTimer = setTimeout(() => this.slowUpstream(), this.opts.maxHoldMs ?? 10_000);
    this.holdTimer.unref();
  }

  private slowUpstream(): void {
    if (!this.clientHeld || this.cause) return;
    this.cause = 'slow-upstream';
    const limit = `more than ${this.opts.maxBufferedBytes} bytes waiting for ${this.opts.maxHoldMs ?? 10_000} ms`;
    this.client.close(1008, `upstream too slow: ${limit}`);
    if (this.upstream.readyState === WebSocket.OPEN) this.upstream.close(1001, 'upstream too slow');
    this.releaseClient(); // a held client could not read its close frame
  }

  private upstreamTook(): void {
    if (this.clientHeld && this.toUpstream.pending <= this.opts.maxBufferedBytes / 2) this.releaseClient();
  }

  private releaseClient(): void {
    if (!this.clientHeld) return;
    this.clientHeld = false;
    clearTimeout(this.holdTimer);
    this.client.resume(); // a no-op once the client is closed
  }

  private slowClient(): void {
    this.cause = 'slow-client';
    // Nothing more is written to the client or read from it for the upstream; frames already queued
    // still reach the client, then the close.
    this.client.close(1008, `client too slow: more than ${this.opts.maxBufferedBytes} bytes waiting`);
    if (this.upstream.readyState === WebSocket.OPEN) this.upstream.close(1001, 'client too slow');
    this.opts.onSlowClient?.();
  }

  private ended(): void {
    if (!this.clientClosed || !this.upstreamClosed) return;
    this.opts.onEnd?.({
      clientCode: this.clientClosed.code, clientReason: this.clientClosed.reason, upstreamCode: this.upstreamClosed.code,
      cause: this.cause, framesUp: this.framesUp, framesDown: this.framesDown,
    });
    this.finish();
  }
}
