// One route's admission to its upstream: an adaptive limit on requests at the upstream at once
// (gradient-limit.ts) with a bounded wait queue in front of it, bounded by count and by time.
// A burst at a healthy upstream waits its turn and is served; a slow or hung endpoint's limit
// shrinks, its queue fills, and only its own requests are shed (503 + Retry-After), never
// another route's. The caller takes the fast path itself (`inflight < limit.limit`: no await,
// no allocation) and comes here only to wait.
import type { Cancellation } from '../../upstream/proxy.js';
import { ClientGone, GatewayError, SummarisedRefusal } from '../errors.js';
import { GradientLimit } from './gradient-limit.js';

export interface AdmissionSettings {
  /** Ceiling of a route's adaptive limit (--route-concurrency). */
  ceiling: number;
  /** Requests one route may have waiting for a slot (--route-queue). */
  queue: number;
  /** How long a request may wait for a slot (--route-queue-wait, ms); the request's deadline still applies. */
  queueWaitMs: number;
}

/** Where a shed request is counted (one summary line per interval, overload/refusal-summary.ts). */
export interface RefusalCounter {
  count(what: string, where: string, detail: string): void;
}

/** Netflix's initial limit: a route starts here and grows while its upstream keeps up. */
const INITIAL_LIMIT = 20;

interface Waiter {
  resolve: () => void;
  reject: (e: unknown) => void;
  cancellation: Cancellation;
  timer: NodeJS.Timeout | undefined;
  prev: Waiter | null;
  next: Waiter | null;
}

export class RouteGate {
  /** Requests of this route at the upstream now. */
  inflight = 0;
  /** Requests waiting for a slot. */
  queued = 0;
  /** Requests shed (queue full or waited too long). */
  shed = 0;
  readonly limit: GradientLimit;
  private head: Waiter | null = null;
  private tail: Waiter | null = null;

  /** `name`: "METHOD /path" (release), for messages and summaries. */
  constructor(readonly name: string, private settings: AdmissionSettings, private readonly refusals: RefusalCounter) {
    this.limit = new GradientLimit(Math.min(INITIAL_LIMIT, settings.ceiling), 1, settings.ceiling);
  }

  configure(settings: AdmissionSettings): void {
    this.settings = settings;
    this.limit.bound(1, settings.ceiling);
  }

  /** Wait for a slot (the caller found none free): resolves holding one, or rejects with a 503 or the cancellation's reason. */
  wait(cancellation: Cancellation): Promise<void> {
    if (this.queued >= this.settings.queue) {
      return Promise.reject(this.refuse(`${this.inflight} requests at the upstream and ${this.queued} waiting (the route's queue is full)`));
    }
    return new Promise<void>((resolve, reject) => {
      const w: Waiter = { resolve, reject, cancellation, timer: undefined, prev: this.tail, next: null };
      if (this.tail) this.tail.next = w;
      else this.head = w;
      this.tail = w;
      this.queued++;
      w.timer = setTimeout(() => {
        this.remove(w);
        reject(this.refuse(`waited ${this.settings.queueWaitMs} ms for one of ${this.limit.limit} slots at the upstream`));
      }, this.settings.queueWaitMs);
      // The client left or the deadline passed while waiting: out of the queue at once.
      cancellation.cancel = (reason) => {
        this.remove(w);
        reject(reason);
      };
    });
  }

  /**
   * A request that held a slot finished: `sent` when it was dispatched (performance.now()),
   * `failure` what it threw (null when answered). Learns from it and hands the slot on.
   */
  release(sent: number, failure: unknown, cancellation: Cancellation): void {
    const inflight = this.inflight--;
    if (failure === null) this.limit.sample(performance.now() - sent, inflight, false);
    else if (!(cancellation.gone && (cancellation.reason ?? failure) instanceof ClientGone)) this.limit.sample(0, inflight, true); // a client leaving says nothing of the upstream
    while (this.head && this.inflight < this.limit.limit) this.grant(this.head);
  }

  private grant(w: Waiter): void {
    this.remove(w);
    w.cancellation.cancel = undefined;
    this.inflight++;
    w.resolve();
  }

  private remove(w: Waiter): void {
    clearTimeout(w.timer);
    if (w.prev) w.prev.next = w.next;
    else if (this.head === w) this.head = w.next;
    else return; // already out
    if (w.next) w.next.prev = w.prev;
    else this.tail = w.prev;
    w.prev = w.next = null;
    this.queued--;
  }

  private refuse(why: string): GatewayError {
    this.shed++;
    this.refusals.count('503 overloaded', this.name, why);
    return new SummarisedRefusal('overloaded', `${this.name}: ${why}; retry later`, { 'retry-after': String(Math.max(1, Math.ceil(this.settings.queueWaitMs / 1000))) });
  }
}
