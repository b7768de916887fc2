// What the listen-key bridges keep that must be one for the whole gateway: the listen keys (ListenKeys),
// the listen-key streams open per token, the one upstream subscription of the gateway's own key, and
// (marginListenKeys) one subscription per margin account, made with a token (token-subscriptions.ts). A process on its own keeps
// them here (LocalStore); under --workers the primary keeps one LocalStore and every worker reaches it
// over the cluster channel (src/cluster-user-data.ts), so a key made through one worker renews, closes
// and streams through any other, and the account has one subscription whatever the worker count. The
// bridge (bridge.ts) keeps only its own clients and feeds them from the store's events.
import type { EventShapes, Scalar } from '../../catalogue/changes/types.js';
import type { Logger } from '../../log.js';
import type { Secret } from '../../upstream/signing/secret.js';
import { GatewayError } from '../errors.js';
import { ListenKeys, type HeldKey } from './listen-keys.js';
import { sameAccount, scopeOf, tokenSubscriptions, type AccountScope, type TokenParts, type TokenSubscriptions } from './token-subscriptions.js';
import { UpstreamSubscription } from './upstream-subscription.js';

/** The name of the bridge whose keys are made per margin account (changes.yaml). */
export const MARGIN_LISTEN_KEYS = 'marginListenKeys';

/** An old call as the bridge step naming it has it: which bridge, the account its `scope` names, the request's parameters. */
export interface BridgeCall {
  bridge: string;
  scope?: Readonly<Record<string, Scalar>>;
  params: Readonly<Record<string, unknown>>;
}

/** What an old call is answered: its status and JSON body. */
export interface BridgeAnswer {
  status: number;
  body: unknown;
}

/** Why a key's streams stop: it expired (the old expiry event first), was closed, or its token was revoked. */
export type KeyEnd = 'expired' | 'closed' | 'revoked';

/** What the store tells the process that feeds clients. */
export interface StoreListener {
  /** An upstream event (only while this process holds the subscription); `account`: a margin account's ('' the gateway's own). */
  event(event: Record<string, unknown>, account: string): void;
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
  /** marginListenKeys: its methods and token, and where tokens are obtained (the REST base, the API-key header). */
  margin?: TokenParts & { restBase?: string; apiKeyHeader?: string; tokenParams?: Readonly<Record<string, string>> };
  limits: { keysPerToken: number; keys: number; streamsPerToken: number; expiresAfterMs: number; lingerMs: number };
  timeoutMs: number;
}

/** The store as the bridge uses it: answers are promises, as they cross a process boundary under --workers. */
export interface UserDataStore {
  /** An old call: create, renew or close `key` for `owner`; `call`: its bridge step and parameters (a margin account). */
  act(action: string, owner: string, key: string, call?: BridgeCall): Promise<BridgeAnswer>;
  /** Admit a stream of `owner` over `keys`: counted against its bound; each key's account ('' the gateway's own); a refusal is a GatewayError. */
  open(owner: string, keys: readonly string[]): Promise<string[]>;
  /** A stream admitted by open() has ended. */
  shut(owner: string): void;
  /** Receive the events of `account`'s subscription ('' the gateway's own; it is held) until release(). */
  hold(account: string): void;
  release(account: string): void;
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
  /** The gateway's API key (a margin account's token is asked with it). */
  apiKey: Secret;
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
  return new UpstreamSubscription({ ...carrying(d, parts), subscribe: d.subscribe, unsubscribe: d.unsubscribe, subscribeParams: () => ({ params: parts.signedParams() }) });
}

/** What every subscription of a definition shares, the gateway's own and each margin account's: the same events, charged and bounded alike. */
function carrying(d: StoreDefinition, parts: StoreParts) {
  return {
    url: d.url, eventPath: d.eventPath, ended: d.events.ended, idField: d.idField, charge: parts.charge,
    lingerMs: d.limits.lingerMs, minIntervalMs: 1000, timeoutMs: d.timeoutMs, logger: parts.logger,
  };
}

export class LocalStore {
  private keys: ListenKeys;
  private upstream: UpstreamSubscription;
  /** The margin accounts, each with its token-made subscription (when the catalogue declares marginListenKeys). */
  private accounts: TokenSubscriptions | undefined;
  private readonly streams = new StreamCounts(() => this.def.limits.streamsPerToken);
  private readonly listeners = new Set<StoreListener>();
  /** Per listener, the release of each subscription it holds, by account ('' the gateway's own). */
  private readonly holds = new Map<StoreListener, Map<string, () => void>>();

  constructor(private def: StoreDefinition, private readonly parts: StoreParts) {
    this.keys = this.newKeys();
    this.upstream = upstreamOf(def, parts);
    this.accounts = accountsOf(def, parts);
  }

  /** Listen keys and upstream subscriptions held now, and upstream calls made. */
  stats(): { listenKeys: number; upstreamSubscriptions: number; upstreamCalls: number } {
    return { listenKeys: this.keys.size, upstreamSubscriptions: this.upstream.active + (this.accounts?.active ?? 0), upstreamCalls: this.upstream.calls + (this.accounts?.calls ?? 0) };
  }

  listen(l: StoreListener): () => void {
    this.listeners.add(l);
    return () => {
      this.listeners.delete(l);
      for (const account of [...(this.holds.get(l)?.keys() ?? [])]) this.release(l, account);
      this.holds.delete(l);
    };
  }

  act(action: string, owner: string, key: string, call?: BridgeCall): BridgeAnswer | Promise<BridgeAnswer> {
    const margin = call?.bridge === MARGIN_LISTEN_KEYS ? call : undefined;
    if (action === 'create') return margin ? this.createFor(owner, margin) : { status: 200, body: { listenKey: this.keys.create(owner).key } };
    // A key answers only to calls of its own account: a margin key is unknown to the spot calls, an isolated one to the cross ones.
    const mine = this.keys.get(owner, key);
    const held = !mine || !sameAccount(mine.scope, margin && (margin.scope ?? {}), call?.params ?? {}) ? undefined
      : action === 'renew' ? this.keys.renew(owner, key) : action === 'close' ? this.keys.close(owner, key) : undefined;
    if (!held) throw new GatewayError('invalid', 'This listenKey does not exist.');
    if (action === 'close') this.ended(held, 'closed');
    return { status: 200, body: {} };
  }

  open(owner: string, keys: readonly string[]): string[] {
    const held = keys.map((k) => this.keys.get(owner, k));
    if (!held.length || held.some((h) => h === undefined)) throw new GatewayError('invalid', 'This listenKey does not exist.');
    this.streams.open(owner);
    return held.map((h) => h!.scope?.id ?? '');
  }

  shut(owner: string): void {
    this.streams.shut(owner);
  }

  hold(l: StoreListener, account: string): void {
    let mine = this.holds.get(l);
    if (!mine) this.holds.set(l, (mine = new Map()));
    if (mine.has(account)) return;
    const sub = account === '' ? this.upstream : this.accounts?.known(account) ? this.accounts.subscription(account) : undefined;
    if (sub) mine.set(account, sub.hold((e) => l.event(e, account)));
  }

  release(l: StoreListener, account: string): void {
    const mine = this.holds.get(l);
    mine?.get(account)?.();
    mine?.delete(account);
  }

  revoke(owners: readonly string[]): void {
    for (const owner of owners) for (const held of this.keys.ownedBy(owner)) {
      this.keys.close(owner, held.key);
      this.ended(held, 'revoked');
    }
  }

  define(def: StoreDefinition): void {
    const was = this.def;
    this.def = def;
    if (resubscribes(was, def)) {
      // Another subscription (method, URL, shapes): the old ones end, whoever held them holds the new ones.
      const held = [...this.holds].map(([l, m]) => [l, [...m.keys()]] as const);
      for (const [l, accounts] of held) for (const a of accounts) this.release(l, a);
      this.upstream.close();
      this.upstream = upstreamOf(def, this.parts);
      this.accounts?.close(); // their keys are kept; a new create for the account asks a token again
      this.accounts = accountsOf(def, this.parts);
      for (const [l, accounts] of held) for (const a of accounts) this.hold(l, a);
    }
    const now = def.limits;
    if (JSON.stringify(was.limits) !== JSON.stringify(now)) this.keys.relimit({ perToken: now.keysPerToken, total: now.keys, expiresAfterMs: now.expiresAfterMs });
  }

  close(): void {
    this.keys.clear();
    this.upstream.close();
    this.accounts?.close();
    this.holds.clear();
  }

  /** A margin key: the account must be known (a token obtained for it) before a key is minted for it. */
  private async createFor(owner: string, call: BridgeCall): Promise<BridgeAnswer> {
    const scope = marginScope(this.accounts, call);
    const accounts = this.accounts!;
    this.keys.admit(owner, scope); // a refusal costs the upstream nothing
    const refused = await accounts.ensure(scope);
    if (refused) return refused; // the exchange's word on the account, as the old call got it
    try {
      return { status: 200, body: { listenKey: this.keys.create(owner, scope).key } };
    } finally {
      if (!this.keys.holdsAccount(scope.id)) accounts.forget(scope.id); // the bound was reached meanwhile
    }
  }

  /** A key ended: its streams are told, and a margin account's subscription and token go with its last key. */
  private ended(held: HeldKey, how: KeyEnd): void {
    for (const l of this.listeners) l.ended(held.key, how);
    if (held.scope && !this.keys.holdsAccount(held.scope.id)) this.accounts?.forget(held.scope.id);
  }

  private newKeys(): ListenKeys {
    const l = this.def.limits;
    return new ListenKeys({ perToken: l.keysPerToken, total: l.keys, expiresAfterMs: l.expiresAfterMs }, (held: HeldKey) => this.ended(held, 'expired'));
  }
}

/** Whether a new definition needs new upstream subscriptions: anything but the bounds changed (method, URL, shapes, linger). */
export function resubscribes(was: StoreDefinition, now: StoreDefinition): boolean {
  const { limits: a, ...wasRest } = was;
  const { limits: b, ...nowRest } = now;
  return JSON.stringify(wasRest) !== JSON.stringify(nowRest) || a.lingerMs !== b.lingerMs;
}

/** The margin accounts a definition declares (marginListenKeys with its token), each to get a token-made subscription. */
export function accountsOf(d: StoreDefinition, parts: StoreParts): TokenSubscriptions | undefined {
  const m = d.margin;
  return m && tokenSubscriptions(m, { restBase: m.restBase, apiKeyHeader: m.apiKeyHeader, apiKey: parts.apiKey, extraParams: m.tokenParams }, carrying(d, parts));
}

/** Why a margin create cannot be made: no accounts (the bridge lacks its token operation or REST upstream), or a missing parameter naming the account. */
export function marginScope(accounts: TokenSubscriptions | undefined, call: BridgeCall): AccountScope {
  if (!accounts) throw new GatewayError('gone', 'This gateway does not bridge margin listen keys (it needs the REST upstream and the catalogue\'s token operation).');
  const { scope, missing } = scopeOf(call.scope, call.params);
  if (missing.length) throw new GatewayError('missing', `Mandatory parameter '${missing[0]}' was not sent, was empty/null, or malformed (it names the account the listen key is for).`);
  return scope;
}

/** A LocalStore used in the process that feeds the clients (no --workers). */
export class InProcessStore implements UserDataStore {
  private readonly detach: () => void;

  constructor(readonly local: LocalStore, private readonly listener: StoreListener) {
    this.detach = local.listen(listener);
  }

  act(action: string, owner: string, key: string, call?: BridgeCall): Promise<BridgeAnswer> {
    return Promise.resolve().then(() => this.local.act(action, owner, key, call));
  }

  open(owner: string, keys: readonly string[]): Promise<string[]> {
    return Promise.resolve().then(() => this.local.open(owner, keys));
  }

  shut(owner: string): void { this.local.shut(owner); }
  hold(account: string): void { this.local.hold(this.listener, account); }
  release(account: string): void { this.local.release(this.listener, account); }
  revoke(owners: readonly string[]): void { this.local.revoke(owners); }
  define(def: StoreDefinition): void { this.local.define(def); }

  close(): void {
    this.detach();
    this.local.close();
  }
}
