// Keeping an upstream subscription that expires (one made with a listen token, the marginListenKeys
// bridge): before its expiry the same subscribe method is sent again on the same connection with new
// params (a new token), which extends it. A renewal refused, unanswered within the timeout or whose
// params could not be made is tried again while the subscription lasts; once it has lapsed the
// connection is closed, and the subscription made again from the start (upstream-subscription.ts).
import type WebSocket from 'ws';
import type { Logger } from '../../log.js';

export interface SubscribeParams {
  params: Record<string, unknown>;
  /** Epoch ms when the subscription these params make ends unless renewed (none: it does not). */
  expiresAt?: number;
}

/** What a renewal needs of the subscription it renews. */
export interface RenewalContext {
  ws: WebSocket;
  subscribe: string;
  idField?: string;
  timeoutMs: number;
  logger: Logger;
  subscribeParams(renew: boolean): SubscribeParams | Promise<SubscribeParams>;
  charge?(method: string, params: Readonly<Record<string, unknown>>): string | undefined;
  /** Whether the subscription on `ws` is still held (not ended, not replaced by another connection). */
  live(): boolean;
  /** Send a request frame on `ws`, counted; answers its id. */
  send(method: string, params: Record<string, unknown>): string;
  /** The subscription's id now (from the subscribe answer). */
  subscriptionId(): unknown;
  /** A renewal answer named another subscription than the first (it made a second one): the first is to end, the new id kept. */
  replaced(id: unknown): void;
}

/** How long before its expiry a subscription is renewed at most (a fifth of its life when that is shorter). */
const RENEW_LEAD_MS = 60_000;

export class Renewal {
  private timer: NodeJS.Timeout | undefined;
  private pending: { id: string; expiresAt?: number } | undefined;

  constructor(private readonly c: RenewalContext, private expiresAt: number) {
    this.schedule();
  }

  /** Whether `frame` answers a renewal (then it is handled here). */
  answered(frame: Record<string, unknown>): boolean {
    if (!this.pending || frame.id !== this.pending.id) return false;
    const { expiresAt } = this.pending;
    this.pending = undefined;
    clearTimeout(this.timer);
    if (frame.status !== 200) {
      const e = frame.error as { code?: unknown; msg?: unknown } | undefined;
      this.c.logger.warn(`user data: renewing ${this.c.subscribe} refused upstream: ${String(frame.status)} ${String(e?.code ?? '')} ${String(e?.msg ?? '').slice(0, 200)}`);
      this.later();
      return true;
    }
    const field = this.c.idField;
    const id = field === undefined ? undefined : (frame.result as Record<string, unknown> | undefined)?.[field];
    if (id !== undefined && this.c.subscriptionId() !== undefined && id !== this.c.subscriptionId()) this.c.replaced(id);
    if (expiresAt !== undefined) this.expiresAt = expiresAt;
    this.c.logger.debug(`user data: renewed the upstream subscription (${this.c.subscribe})`);
    this.schedule();
    return true;
  }

  stop(): void {
    clearTimeout(this.timer);
    this.pending = undefined;
  }

  private schedule(): void {
    const left = this.expiresAt - Date.now();
    this.arm(() => void this.renew(), Math.max(0, left - Math.min(RENEW_LEAD_MS, left / 5)));
  }

  private async renew(): Promise<void> {
    if (!this.c.live()) return;
    let sp: SubscribeParams;
    try {
      sp = await this.c.subscribeParams(true);
    } catch (e) {
      this.c.logger.warn(`user data: could not renew the upstream subscription: ${(e as Error).message}`);
      return this.later();
    }
    if (!this.c.live() || this.c.ws.readyState !== this.c.ws.OPEN) return;
    const refusal = this.c.charge?.(this.c.subscribe, sp.params);
    if (refusal) {
      this.c.logger.warn(`user data: not renewing the upstream subscription yet: ${refusal}`);
      return this.later();
    }
    const pending = (this.pending = { id: this.c.send(this.c.subscribe, sp.params), expiresAt: sp.expiresAt });
    // An answer that never comes is a failed renewal.
    this.arm(() => {
      if (this.pending !== pending) return;
      this.pending = undefined;
      this.c.logger.warn(`user data: no answer to renewing ${this.c.subscribe} within ${this.c.timeoutMs} ms`);
      this.later();
    }, this.c.timeoutMs);
  }

  /** Tried again while the subscription lasts; lapsed, the connection is closed (and made again). */
  private later(): void {
    if (!this.c.live()) return;
    const left = this.expiresAt - Date.now();
    if (left <= 0) return void this.c.ws.close();
    this.arm(() => void this.renew(), Math.max(100, Math.min(left / 2, 5000)));
  }

  private arm(f: () => void, ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(f, ms);
    this.timer.unref();
  }
}
