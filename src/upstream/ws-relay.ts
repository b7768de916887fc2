// The websocket relay: one client connection joined to one upstream connection.
// Data frames pass unchanged both ways (text stays text, binary stays binary, same bytes, same
// order); control frames are relayed too (an upstream ping reaches the client and its pong goes
// back), so each end's keep-alive sees the other end. Close codes are propagated. The gateway never
// buffers without bound: every frame it writes to a peer (relayed data, its own answers, relayed
// pings and pongs) goes through that peer's Outbox, which counts what the peer has not taken yet.
// A client that reads slower than the gateway writes to it is closed (1008) once more than
// `maxBufferedBytes` wait for it; a client that writes faster than the upstream reads is not read
// (its frames wait in its own socket) until the upstream has taken half of what waits for it.
import WebSocket, { type RawData } from 'ws';
import { closeLike, shortReason } from './ws-close.js';
import { InOrder, type AwaitingInspect, type InspectAnswer } from './ws-in-order.js';
import { Outbox } from './ws-outbox.js';

export type { AwaitingInspect, Inspect, InspectAnswer } from './ws-in-order.js';

export interface RelayOptions {
  /** Bytes allowed to wait for a slow client before it is closed with 1008. */
  maxBufferedBytes: number;
  /** Check a client frame before it is forwarded. */
  inspect?: AwaitingInspect;
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

const open = (ws: WebSocket) => ws.readyState === WebSocket.OPEN;

const asBuffer = (d: RawData): Buffer => (Buffer.isBuffer(d) ? d : Array.isArray(d) ? Buffer.concat(d) : Buffer.from(d));

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
  /** Client frames through inspect, in order even when an answer comes later. */
  private inOrder: InOrder | undefined;
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
    this.toClient = new Outbox(client, opts.maxBufferedBytes);
    this.toUpstream = new Outbox(upstream, opts.maxBufferedBytes, () => this.upstreamTook());
    this.relayData();
    this.relayControl();
    this.relayClose();
    upstream.resume();
    // The upstream may have gone between its handshake and now.
    if (upstream.readyState === WebSocket.CLOSED) {
      this.upstreamClosed = { code: 1006 };
      closeLike(client, 1006, '', 1011, 'upstream connection lost');
    }
  }

  /** Data frames, both ways. */
  private relayData(): void {
    const { client, upstream, opts: { inspect, inspectDown } } = this;
    this.inOrder = inspect && new InOrder(inspect, (d, b, a) => this.take(d, b, a), () => !this.cause && open(upstream), (code, reason) => {
      this.cause = 'slow-client';
      client.close(code, reason);
      if (upstream.readyState === WebSocket.OPEN) upstream.close(1001, 'client closed by the gateway');
    });
    // Upstream → client: the hot path of market streams; no inspection.
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
      if (this.inOrder) this.inOrder.push(data, isBinary);
      else this.take(data, isBinary, undefined);
    });
  }

  /** What inspect said of a client frame, done: answered, forwarded rewritten, or forwarded as it came. */
  private take(data: Buffer, isBinary: boolean, answer: InspectAnswer): void {
    if (!open(this.upstream) || this.cause || !open(this.client)) return;
    if (typeof answer === 'string') {
      this.toClient.send(answer, false);
      this.checkClient();
      return;
    }
    this.framesUp++;
    if (answer) this.toUpstream.send(answer.forward, false); // [wssign] rewritten (signed) frame
    else this.toUpstream.send(data, isBinary);
    this.checkUpstream();
  }

  /**
   * Control frames, relayed through the same outboxes; answered here only when the other side is
   * not open. A pong may be left out (RFC 6455 §5.5.3 lets an endpoint answer only the latest ping).
   */
  private relayControl(): void {
    const { client, upstream } = this;
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
  }

  /** A close on one side closes the other like it; the relay ends when both are closed. */
  private relayClose(): void {
    const { client, upstream } = this;
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
  closeGone(reason: string, code = 1001): boolean {
    if (this.cause || this.client.readyState !== WebSocket.OPEN) return false;
    this.cause = 'gone';
    this.client.close(code, shortReason(reason));
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
