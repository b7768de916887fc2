// The overload manager (Envoy's overload manager with its reduce_timeouts action is the anchor).
// It watches open client connections against the cap:
//   - past the high-water mark, the header and keep-alive idle timeouts shrink to the overload
//     timeout, and connections with no request in progress (idle keep-alive ones and those that
//     never sent a complete request head) are closed once idle that long, oldest first;
//   - back below the low-water mark, the configured timeouts return.
// Each transition is one log line and moves a gauge. When calm, node's own timers do the work
// (its header timeout also closes a connection that never sends a byte, answering 408); under
// pressure the sweep here applies the shorter timeout every 250 ms, to connections whose timers
// were set before the pressure began too. At the cap itself, a new connection first makes room
// (nginx's "reusable" connections): the oldest connection that has not completed a request head
// (sent nothing, or trickles one) is closed, else the longest-idle keep-alive one; only when none is
// left (every connection has a request under way) is the new one refused.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../../log.js';
import { connectionIdleSince } from '../observe/access-record.js';
import type { Metrics } from '../observe/metrics.js';

export interface OverloadSettings {
  cap: number;
  /** Marks in % of the cap. */
  highWater: number;
  lowWater: number;
  /** Header and keep-alive idle timeouts while overloaded (ms). */
  overloadTimeoutMs: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

/** How often connections are looked over under pressure. */
const SWEEP_MS = 250;

/** The response node is writing on a connection (set from a request's head to its answer's end). */
type HttpSocket = Socket & { _httpMessage?: unknown };

export class OverloadManager {
  /** Open client connections (upgraded ones included: they hold a descriptor too). */
  open = 0;
  overloaded = false;
  transitions = 0;
  /** Connections closed for being silent or idle past their timeout. */
  reaped = 0;
  /** Connections closed at the cap to make room for a new one. */
  reused = 0;
  readonly high: number;
  readonly low: number;
  private readonly reduced: { headers: number; keepAlive: number };
  /** Connections that may be reaped, oldest first, with when each opened (performance.now()). */
  private readonly watched = new Map<HttpSocket, number>();
  private timer: NodeJS.Timeout | undefined;
  /** `reaped` when the overloaded state began (the leaving line says how many it closed). */
  private reapedAtEntry = 0;
  /** Connections that may make room at the cap, best first, as the last look found them (re-checked at use). */
  private spare: { socket: HttpSocket; tier: Tier }[] = [];
  private spareAt = -Infinity;
  /** Connections opened while overloaded since the last look (undefined: too many, look at all again). */
  private recent: HttpSocket[] | undefined = [];

  constructor(private readonly server: Server, private readonly s: OverloadSettings, private readonly logger: Logger) {
    this.high = Math.max(1, Math.floor((s.cap * s.highWater) / 100));
    this.low = Math.max(0, Math.min(this.high - 1, Math.floor((s.cap * s.lowWater) / 100)));
    this.reduced = { headers: Math.min(s.overloadTimeoutMs, s.headersTimeoutMs), keepAlive: Math.min(s.overloadTimeoutMs, s.keepAliveTimeoutMs) };
    server.once('close', () => clearTimeout(this.timer));
  }

  /** A connection was accepted (the caller noted its opening with connectionOpened()). */
  opened(socket: Socket): void {
    this.open++;
    if (this.overloaded && this.recent) {
      this.recent.push(socket);
      if (this.recent.length > this.s.cap) this.recent = undefined;
    }
    this.watched.set(socket, connectionIdleSince(socket) ?? performance.now());
    socket.once('close', () => this.closed(socket));
    if (!this.overloaded && this.open >= this.high) this.enter();
  }

  /** Upgraded to a websocket: no longer an HTTP connection to time out (it still counts as open). */
  upgraded(socket: Socket): void {
    this.watched.delete(socket);
  }

  private closed(socket: Socket): void {
    this.open--;
    this.watched.delete(socket);
    if (this.overloaded && this.open < this.low) this.leave();
  }

  private enter(): void {
    this.overloaded = true;
    this.transitions++;
    this.server.headersTimeout = this.reduced.headers;
    this.server.keepAliveTimeout = this.reduced.keepAlive;
    this.logger.warn(`overload: ${this.open} open connections reached the high-water mark ${this.high} (${this.s.highWater} % of the cap ${this.s.cap}): header and keep-alive idle timeouts ${this.s.headersTimeoutMs}/${this.s.keepAliveTimeoutMs} → ${this.reduced.headers}/${this.reduced.keepAlive} ms; idle and silent connections are closed past them, oldest first`);
    this.reapedAtEntry = this.reaped;
    this.sweep();
  }

  private leave(): void {
    this.overloaded = false;
    this.transitions++;
    this.server.headersTimeout = this.s.headersTimeoutMs;
    this.server.keepAliveTimeout = this.s.keepAliveTimeoutMs;
    this.logger.info(`overload over: ${this.open} open connections, below the low-water mark ${this.low} (${this.s.lowWater} %): timeouts restored to ${this.s.headersTimeoutMs}/${this.s.keepAliveTimeoutMs} ms; ${this.reaped - this.reapedAtEntry} idle or silent connections closed meanwhile`);
    clearTimeout(this.timer);
    this.spare = [];
    this.recent = [];
  }

  /**
   * At the cap: close the connection that loses least to make room for a new one — one that has not
   * completed a request head (oldest first), else an idle keep-alive one (longest idle first), as
   * nginx does with its "reusable" connections. False when there is none: a connection with a
   * request in progress is never closed to make room.
   * One look over all connections serves the next SWEEP_MS; meanwhile only those opened since are
   * added (a flood costs no scan per connection). Each candidate is checked again when used.
   */
  makeRoom(): boolean {
    for (;;) {
      const next = this.spare.pop();
      if (next) {
        const opened = this.watched.get(next.socket);
        if (opened === undefined || next.socket.destroyed || tierOf(next.socket, opened) !== next.tier) continue; // gone, or busy since
        this.watched.delete(next.socket);
        this.reused++;
        next.socket.destroy();
        return true;
      }
      if (performance.now() - this.spareAt >= SWEEP_MS || this.recent === undefined) this.lookForSpare();
      else if (this.recent.length) {
        this.spare = this.recent.reverse().map((socket) => ({ socket, tier: Tier.silent })); // newer than all the last look found
        this.recent = [];
      } else return false;
      if (!this.spare.length) return false;
    }
  }

  private lookForSpare(): void {
    const found: { socket: HttpSocket; tier: Tier; at: number }[] = [];
    for (const [socket, opened] of this.watched) {
      const tier = tierOf(socket, opened);
      if (tier !== undefined) found.push({ socket, tier, at: tier === Tier.idle ? connectionIdleSince(socket) ?? opened : opened });
    }
    // Popped from the end: the best last (silent before idle, then oldest).
    this.spare = found.sort((a, b) => b.tier - a.tier || b.at - a.at);
    this.spareAt = performance.now();
    this.recent = [];
  }

  /** Under pressure: close connections with no request in progress idle past the shorter timeouts, oldest first. */
  private sweep(): void {
    if (!this.overloaded) return;
    const now = performance.now();
    for (const [socket, opened] of this.watched) {
      if (socket._httpMessage) continue; // a request in progress: its own deadline governs
      // Never answered: no complete request head yet (the header timeout); else an idle keep-alive connection.
      const since = connectionIdleSince(socket) ?? opened;
      if (now - since < (since === opened ? this.reduced.headers : this.reduced.keepAlive)) continue;
      this.watched.delete(socket);
      this.reaped++;
      socket.destroy();
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.sweep(), SWEEP_MS);
    this.timer.unref();
  }

  observe(metrics: Metrics): void {
    metrics.addGauge('gateway_connections_open', 'Open client connections (websockets included).', () => this.open);
    metrics.addGauge('gateway_connections_cap', 'Client connections at most; at it a new one first makes room (the oldest connection with no complete request head, else the longest idle, is closed), else gets a 503 written on the socket and is closed.', () => this.s.cap);
    metrics.addGauge('gateway_overload_active', '1 while open connections are past the high-water mark (timeouts shortened, idle connections closed), until back below the low-water mark.', () => (this.overloaded ? 1 : 0));
    metrics.addCounter('gateway_overload_transitions_total', 'Times the overload manager entered or left the overloaded state.', () => this.transitions);
    metrics.addCounter('gateway_connections_reused_total', 'Connections closed at the cap to make room for a new one (the oldest with no complete request head, else the longest idle).', () => this.reused);
    metrics.addCounter('gateway_connections_reaped_total', 'Connections closed for sending no complete request head, or for idling, past their timeout.', () => this.reaped);
  }
}

/** What closing a connection loses, least first: no request head yet; idle between requests. */
const Tier = { silent: 0, idle: 1 } as const;
type Tier = (typeof Tier)[keyof typeof Tier];

/**
 * The tier of a connection that may make room; undefined while a request is under way. A first
 * request head still arriving counts as silent whatever bytes of it came: a client completes a head
 * in a round trip or two, so the oldest incomplete one is a trickler holding a place (issue 46).
 */
function tierOf(socket: HttpSocket, opened: number): Tier | undefined {
  if (socket._httpMessage) return undefined;
  return (connectionIdleSince(socket) ?? opened) !== opened ? Tier.idle : Tier.silent; // answered before, nothing in progress: idle
}
