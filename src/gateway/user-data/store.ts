// What the listen-key bridge keeps that must be one for the whole gateway: the listen keys (ListenKeys),
// the listen-key streams open per token, and the one upstream subscription. A process on its own keeps
// them here (LocalStore); under --workers the primary keeps one LocalStore and every worker reaches it
// over the cluster channel (src/cluster-user-data.ts), so a key made through one worker renews, closes
// and streams through any other, and the account has one subscription whatever the worker count. The
// bridge (bridge.ts) keeps only its own clients and feeds them from the store's events.
import type { EventShapes } from '../../catalogue/changes/types.js';
import type { Logger } from '../../log.js';
import { GatewayError } from '../errors.js';
import { ListenKeys, type HeldKey } from './listen-keys.js';
import { UpstreamSubscription } from './upstream-subscription.js';

/** What an old call is answered: its status and JSON body. */
export interface BridgeAnswer {
  status: number;
  body: unknown;
}

/** Why a key's streams stop: it expired (the old expiry event first), was closed, or its token was revoked. */
export type KeyEnd = 'expired' | 'closed' | 'revoked';

/** What the store tells the process that feeds clients. */
export interface StoreListener {
  /** An upstream event (only while this process holds the subscription). */
  event(event: Record<string, unknown>): void;
  /** A key ended: its streams get no more events. */
  ended(key: string, how: KeyEnd): void;
  /** The keys this process's clients stream now (a store that must look for keys ended elsewhere asks). */
  watching?(): Iterable<string>;
}

/** The serialisable part of a bridge's definition (the same in every worker; sent to the primary). */
export interface StoreDefinition {
  /** The websocket API's URL, base and path joined. */
  url: string;
  /** Method names of the subscribe and unsubscribe calls. */
  subscribe: string;
  unsubscribe: string;
  /** The stream template the listen keys name (its placeholder is the key in the expiry event). */
  stream: string;
  events: EventShapes;
  eventPath: readonly string[];
  idField?: string;
  limits: { keysPerToken: number; keys: number; streamsPerToken: number; expiresAfterMs: number; lingerMs: number };
  timeoutMs: number;
}

/** The store as the bridge uses it: answers are promises, as they cross a process boundary under --workers. */
export interface UserDataStore {
  /** An old call: create, renew or close `key` for `owner`. */
  act(action: string, owner: string, key: string): Promise<BridgeAnswer>;
  /** Admit a stream of `owner` over `keys`: counted against its bound; a refusal is a GatewayError. */
  open(owner: string, keys: readonly string[]): Promise<void>;
  /** A stream admitted by open() has ended. */
  shut(owner: string): void;
  /** Receive upstream events (the subscription is held) until release(). */
  hold(): void;
  release(): void;
  /** Forget every key of these owners (tokens a reload removed or narrowed); their streams end ('revoked'). */
  revoke(owners: readonly string[]): void;
  /** The definition changed (a reload): a store whose subscription differs is rebuilt; keys are kept. */
  define(def: StoreDefinition): void;
  close(): void;
}

/** The parts a LocalStore gets from its process: signing, rate limits, the log. */
export interface StoreParts {
  /** The subscribe request's params, signed by the gateway (fresh timestamp each call). */
  signedParams(): Record<string, unknown>;
  /** Charge one upstream call to the exchange's limits: a refusal message, or undefined. */
  charge?(method: string, params: Readonly<Record<string, unknown>>): string | undefined;
  logger: Logger;
}

/** A GatewayError as plain data (to cross the cluster channel) and back. */
export interface ErrorData { reason: GatewayError['reason']; message: string; headers?: Record<string, string> }
export const errorData = (e: GatewayError): ErrorData => ({ reason: e.reason, message: e.message, headers: e.headers });
export const errorOf = (d: ErrorData): GatewayError => new GatewayError(d.reason, d.message, d.headers);

/** Listen-key streams open per token, within --user-data-streams-per-token. */
export class StreamCounts {
  private readonly n = new Map<string, number>();
  constructor(private readonly bound: () => number) {}

  open(owner: string): void {
    const n = this.n.get(owner) ?? 0;
    const bound = this.bound();
    if (n >= bound) throw new GatewayError('tooManyRequests', `Client token "${owner}" holds ${n} listen-key streams open, the most it may (--user-data-streams-per-token ${bound}): close one first.`);
    this.n.set(owner, n + 1);
  }

  shut(owner: string): void {
    const n = (this.n.get(owner) ?? 1) - 1;
    if (n > 0) this.n.set(owner, n);
    else this.n.delete(owner);
  }
}

/** The upstream subscription a definition describes. */
export function upstreamOf(d: StoreDefinition, parts: StoreParts): UpstreamSubscription {
  return new UpstreamSubscription({
    url: d.url, subscribe: d.subscribe, unsubscribe: d.unsubscribe, signedParams: parts.signedParams,
    eventPath: d.eventPath, ended: d.events.ended, idField: d.idField, charge: parts.charge,
    lingerMs: d.limits.lingerMs, minIntervalMs: 1000, timeoutMs: d.timeoutMs, logger: parts.logger,
  });
}

export class LocalStore {
  private keys: ListenKeys;
  private upstream: UpstreamSubscription;
  private readonly streams = new StreamCounts(() => this.def.limits.streamsPerToken);
  private readonly listeners = new Set<StoreListener>();
  private readonly holds = new Map<StoreListener, () => void>();

  constructor(private def: StoreDefinition, private readonly parts: StoreParts) {
    this.keys = this.newKeys();
    this.upstream = upstreamOf(def, parts);
  }

  /** Listen keys and upstream subscriptions held now, and upstream calls made. */
  stats(): { listenKeys: number; upstreamSubscriptions: number; upstreamCalls: number } {
    return { listenKeys: this.keys.size, upstreamSubscriptions: this.upstream.active, upstreamCalls: this.upstream.calls };
  }

  listen(l: StoreListener): () => void {
    this.listeners.add(l);
    return () => {
      this.listeners.delete(l);
      this.release(l);
    };
  }

  act(action: string, owner: string, key: string): BridgeAnswer {
    if (action === 'create') return { status: 200, body: { listenKey: this.keys.create(owner).key } };
    const held = action === 'renew' ? this.keys.renew(owner, key) : action === 'close' ? this.keys.close(owner, key) : undefined;
    if (!held) throw new GatewayError('invalid', 'This listenKey does not exist.');
    if (action === 'close') this.tell(key, 'closed');
    return { status: 200, body: {} };
  }

  open(owner: string, keys: readonly string[]): void {
    if (!keys.length || !keys.every((k) => this.keys.get(owner, k) !== undefined)) throw new GatewayError('invalid', 'This listenKey does not exist.');
    this.streams.open(owner);
  }

  shut(owner: string): void {
    this.streams.shut(owner);
  }

  hold(l: StoreListener): void {
    if (!this.holds.has(l)) this.holds.set(l, this.upstream.hold((e) => l.event(e)));
  }

  release(l: StoreListener): void {
    this.holds.get(l)?.();
    this.holds.delete(l);
  }

  revoke(owners: readonly string[]): void {
    for (const owner of owners) for (const held of this.keys.ownedBy(owner)) {
      this.keys.close(owner, held.key);
      this.tell(held.key, 'revoked');
    }
  }

  define(def: StoreDefinition): void {
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    const { limits: was, ...wasRest } = this.def;
    const { limits: now, ...nowRest } = def;
    this.def = def;
    if (!same(wasRest, nowRest) || was.lingerMs !== now.lingerMs) {
      // Another subscription (method, URL, shapes): the old one ends, whoever holds it holds the new one.
      const holders = [...this.holds.keys()];
      for (const l of holders) this.release(l);
      this.upstream.close();
      this.upstream = upstreamOf(def, this.parts);
      for (const l of holders) this.hold(l);
    }
    if (!same(was, now)) this.keys.relimit({ perToken: now.keysPerToken, total: now.keys, expiresAfterMs: now.expiresAfterMs });
  }

  close(): void {
    this.keys.clear();
    this.upstream.close();
    this.holds.clear();
  }

  private tell(key: string, how: KeyEnd): void {
    for (const l of this.listeners) l.ended(key, how);
  }

  private newKeys(): ListenKeys {
    const l = this.def.limits;
    return new ListenKeys({ perToken: l.keysPerToken, total: l.keys, expiresAfterMs: l.expiresAfterMs }, (held: HeldKey) => this.tell(held.key, 'expired'));
  }
}

/** A LocalStore used in the process that feeds the clients (no --workers). */
export class InProcessStore implements UserDataStore {
  private readonly detach: () => void;

  constructor(readonly local: LocalStore, private readonly listener: StoreListener) {
    this.detach = local.listen(listener);
  }

  act(action: string, owner: string, key: string): Promise<BridgeAnswer> {
    try {
      return Promise.resolve(this.local.act(action, owner, key));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  open(owner: string, keys: readonly string[]): Promise<void> {
    try {
      this.local.open(owner, keys);
      return Promise.resolve();
    } catch (e) {
      return Promise.reject(e);
    }
  }

  shut(owner: string): void { this.local.shut(owner); }
  hold(): void { this.local.hold(this.listener); }
  release(): void { this.local.release(this.listener); }
  revoke(owners: readonly string[]): void { this.local.revoke(owners); }
  define(def: StoreDefinition): void { this.local.define(def); }

  close(): void {
    this.detach();
    this.local.close();
  }
}
