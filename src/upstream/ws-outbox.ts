// What waits for one peer of a relay, counted in bytes plus a fixed cost per frame, so a limit on
// it holds for a flood of tiny frames as for large ones.
import WebSocket from 'ws';

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
export class Outbox {
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
