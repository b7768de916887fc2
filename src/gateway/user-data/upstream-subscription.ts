// The one user-data subscription the gateway holds upstream for its own account (the listenKeys
// bridge): a websocket-API connection on which it sends the bridge's `via` method signed with its key
// (userDataStream.subscribe.signature in today's catalogue), and whose wrapped events it unwraps for
// whoever holds it. One account, one subscription: every listen-key stream of the gateway shares it
// (the upstream allows one subscription per account and connection). Held while something holds it;
// `lingerMs` after the last release it unsubscribes and closes, so a client connecting and dropping
// in a loop costs the upstream nothing more. Subscribing is tried at most once per `minIntervalMs`,
// whatever clients do, and each call is charged to the exchange's limits first (when limits are on).
// A subscription whose params carry an expiry (one made with a listen token, the marginListenKeys
// bridge) is renewed on the same connection before then (subscription-renewal.ts).
import { Backoff } from './backoff.js';
import { Renewal, type SubscribeParams } from './subscription-renewal.js';
import { createRequire } from 'node:module';
import type WebSocket from 'ws';
import type { Logger } from '../../log.js';

/** ws, loaded on the first subscription: a gateway whose clients never ask for user data never loads it. */
let Ws: typeof WebSocket | undefined;
const ws = (): typeof WebSocket => (Ws ??= createRequire(import.meta.url)('ws') as typeof WebSocket);
const OPEN = 1;
const CONNECTING = 0;

export interface SubscriptionOptions {
  /** The websocket API's URL (base + path). */
  url: string;
  /** Method names: the bridge's `via` of its create (subscribe) and close (unsubscribe) actions. */
  subscribe: string;
  unsubscribe: string;
  /**
   * The subscribe request's params (signed by the gateway, a fresh timestamp each call; or carrying a
   * token), and when what they authorise expires; `renew`: asked to extend the subscription before then.
   */
  subscribeParams(renew: boolean): SubscribeParams | Promise<SubscribeParams>;
  /** Where the event sits in an upstream frame (the keys of changes.yaml events.upstream leading to "<event>"). */
  eventPath: readonly string[];
  /**
   * The field naming the upstream subscription (the key of events.upstream holding "<subscriptionId>"):
   * read from the subscribe answer and sent with the unsubscribe call. Without one, unsubscribing
   * sends no params, which ends every subscription of the connection (the gateway's own).
   */
  idField?: string;
  /** The type (field e) of an upstream event that ends the subscription. */
  ended?: string;
  /** Charge one call to the exchange's limits: a refusal message, or undefined to go ahead. */
  charge?(method: string, params: Readonly<Record<string, unknown>>): string | undefined;
  lingerMs: number;
  minIntervalMs: number;
  timeoutMs: number;
  logger: Logger;
}

export type EventListener = (event: Record<string, unknown>) => void;

export type { SubscribeParams };

/** The longest wait between two subscribe tries after a run of failures. */
const MAX_RETRY_MS = 5 * 60 * 1000;

/** The largest upstream user-data frame passed on: account events are a few KiB. */
export const MAX_EVENT_BYTES = 1024 * 1024;
/** Past this the upstream connection itself is cut (1009) and subscribed again: nothing that size is read whole. */
const MAX_FRAME_BYTES = 16 * 1024 * 1024;

export class UpstreamSubscription {
  private readonly listeners = new Set<EventListener>();
  private ws: WebSocket | undefined;
  private subscriptionId: unknown;
  private lastAttempt = -Infinity;
  private retry: NodeJS.Timeout | undefined;
  private linger: NodeJS.Timeout | undefined;
  private nextId = 1;
  private readonly backoff: Backoff;
  /** The upstream's own retryAfter (epoch ms) from its last refusal, honoured by the next try. */
  private retryAfter = 0;
  private answerTimer: NodeJS.Timeout | undefined;
  /** Params are being made (a token obtained) for a connection about to open. */
  private starting = false;
  /** When the subscription ends unless renewed, and its renewal once subscribed. */
  private expiresAt: number | undefined;
  private renewal: Renewal | undefined;
  /** Upstream frames dropped for their size (the first is warned of). */
  oversized = 0;
  /** Upstream subscriptions held now (0 or 1) and calls made (for stats and tests). */
  active = 0;
  calls = 0;

  constructor(private readonly o: SubscriptionOptions) {
    this.backoff = new Backoff(Math.max(o.minIntervalMs, 1000), MAX_RETRY_MS);
  }

  /** Receive the account's events until the returned function is called. */
  hold(listener: EventListener): () => void {
    this.listeners.add(listener);
    clearTimeout(this.linger);
    this.linger = undefined;
    if (!this.ws && !this.starting) this.connect();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.listeners.delete(listener);
      if (!this.listeners.size && !this.linger) {
        this.linger = setTimeout(() => { this.linger = undefined; if (!this.listeners.size) this.end(); }, this.o.lingerMs);
        this.linger.unref();
      }
    };
  }

  /** Drop everything now (the gateway is closing). */
  close(): void {
    this.listeners.clear();
    clearTimeout(this.linger);
    clearTimeout(this.retry);
    this.end();
  }

  private connect(): void {
    const wait = this.lastAttempt + this.o.minIntervalMs - performance.now();
    if (wait > 0) {
      if (!this.retry) { this.retry = setTimeout(() => { this.retry = undefined; if (this.listeners.size && !this.ws && !this.starting) this.connect(); }, wait); this.retry.unref(); }
      return;
    }
    this.lastAttempt = performance.now();
    const made = this.o.subscribeParams(false);
    if (!(made instanceof Promise)) return this.open(made);
    this.starting = true;
    made.then((sp) => {
      this.starting = false;
      if (this.listeners.size && !this.ws) this.open(sp);
    }, (e: unknown) => {
      this.starting = false;
      this.o.logger.warn(`user data: not subscribing upstream yet: ${(e as Error).message}`);
      if (this.listeners.size) this.retryLater(this.backoff.next());
    });
  }

  private open({ params, expiresAt }: SubscribeParams): void {
    const refusal = this.o.charge?.(this.o.subscribe, params);
    if (refusal) {
      this.o.logger.warn(`user data: not subscribing upstream yet: ${refusal}`);
      return this.retryLater(this.backoff.next());
    }
    const socket = new (ws())(this.o.url, { perMessageDeflate: false, handshakeTimeout: this.o.timeoutMs, maxPayload: MAX_FRAME_BYTES });
    this.ws = socket;
    this.expiresAt = expiresAt;
    let id = '';
    socket.on('open', () => {
      id = this.send(socket, this.o.subscribe, params);
      // An answer that never comes is a failure like a refusal: closed, then tried again after the backoff.
      this.answerTimer = setTimeout(() => {
        this.o.logger.warn(`user data: no answer to ${this.o.subscribe} within ${this.o.timeoutMs} ms; trying again later`);
        socket.terminate();
      }, this.o.timeoutMs);
      this.answerTimer.unref();
    });
    socket.on('message', (data) => this.onFrame(socket, id, data as Buffer));
    socket.on('ping', (d) => socket.pong(d));
    socket.on('error', (e) => this.o.logger.warn(`user data: upstream websocket ${(e as NodeJS.ErrnoException).code ?? e.name}`));
    socket.on('close', () => {
      clearTimeout(this.answerTimer);
      if (this.ws !== socket) return;
      this.renewal?.stop();
      this.renewal = undefined;
      this.ws = undefined;
      this.active = 0;
      this.subscriptionId = undefined;
      if (this.listeners.size) this.retryLater(this.backoff.next(this.retryAfter - Date.now()));
    });
  }

  private retryLater(waitMs = Math.max(this.o.minIntervalMs, 1000)): void {
    if (this.retry) return;
    this.retry = setTimeout(() => { this.retry = undefined; if (this.listeners.size && !this.ws && !this.starting) this.connect(); }, waitMs);
    this.retry.unref();
  }

  private onFrame(ws: WebSocket, id: string, data: Buffer): void {
    if (data.length > MAX_EVENT_BYTES) {
      // An account event is a few KiB: one this large is dropped, never parsed and fanned out to every client.
      if (this.oversized++ === 0) this.o.logger.warn(`user data: an upstream frame of ${data.length} bytes (over ${MAX_EVENT_BYTES}) was dropped; later ones are dropped without a warning`);
      return;
    }
    let frame: Record<string, unknown>;
    try {
      frame = JSON.parse(data.toString('utf8')) as Record<string, unknown>;
    } catch {
      return;
    }
    if (!frame || typeof frame !== 'object') return;
    if (frame.id === id) {
      clearTimeout(this.answerTimer);
      if (frame.status === 200) {
        this.backoff.reset();
        this.retryAfter = 0;
        this.active = 1;
        const field = this.o.idField;
        this.subscriptionId = field === undefined ? undefined : (frame.result as Record<string, unknown> | undefined)?.[field];
        this.o.logger.info(`user data: subscribed upstream (${this.o.subscribe})`);
        if (this.expiresAt !== undefined) this.renewal = this.renewalOf(ws, this.expiresAt);
      } else {
        const e = frame.error as { code?: unknown; msg?: unknown; data?: { retryAfter?: unknown } } | undefined;
        // 429 and 418 carry the time the exchange allows the next request (retryAfter, epoch ms): never sooner.
        const after = Number(e?.data?.retryAfter);
        if (Number.isFinite(after)) this.retryAfter = after;
        this.o.logger.warn(`user data: ${this.o.subscribe} refused upstream: ${String(frame.status)} ${String(e?.code ?? '')} ${String(e?.msg ?? '').slice(0, 200)}${Number.isFinite(after) ? `; not before ${new Date(after).toISOString()}` : ''}`);
        ws.close();
      }
      return;
    }
    if (this.renewal?.answered(frame)) return;
    if (frame.id !== undefined) return; // the answer to an unsubscribe
    let event: unknown = frame;
    for (const k of this.o.eventPath) event = (event as Record<string, unknown> | undefined)?.[k];
    if (!event || typeof event !== 'object') return;
    const e = event as Record<string, unknown>;
    if (this.o.ended && e.e === this.o.ended) {
      // The upstream ended it: subscribe again (on a new connection) if it is still needed.
      this.active = 0;
      ws.close();
      return;
    }
    for (const l of this.listeners) l(e);
  }

  private renewalOf(ws: WebSocket, expiresAt: number): Renewal {
    return new Renewal({
      ws, subscribe: this.o.subscribe, idField: this.o.idField, timeoutMs: this.o.timeoutMs, logger: this.o.logger,
      subscribeParams: (renew) => this.o.subscribeParams(renew), charge: this.o.charge && ((method, params) => this.o.charge!(method, params)),
      live: () => this.ws === ws && this.active === 1,
      send: (method, params) => this.send(ws, method, params),
      subscriptionId: () => this.subscriptionId,
      replaced: (id) => {
        this.unsubscribe(ws); // the first one, by its id
        this.subscriptionId = id;
      },
    }, expiresAt);
  }

  /** One request frame, counted; its id. */
  private send(ws: WebSocket, method: string, params: Record<string, unknown>): string {
    const id = `gw-ud-${this.nextId++}`;
    this.calls++;
    ws.send(JSON.stringify({ id, method, params }));
    return id;
  }

  private unsubscribe(ws: WebSocket): void {
    const params = this.subscriptionId === undefined || this.o.idField === undefined ? {} : { [this.o.idField]: this.subscriptionId };
    if (!this.o.charge?.(this.o.unsubscribe, params)) this.send(ws, this.o.unsubscribe, params);
  }

  private end(): void {
    const ws = this.ws;
    if (!ws) return;
    this.ws = undefined;
    this.renewal?.stop();
    this.renewal = undefined;
    if (ws.readyState === OPEN && this.active) this.unsubscribe(ws);
    this.active = 0;
    this.subscriptionId = undefined;
    // Closing the connection ends the subscription upstream in any case.
    if (ws.readyState === CONNECTING) ws.terminate();
    else ws.close(1000);
  }
}
