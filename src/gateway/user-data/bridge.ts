// The listenKeys bridge (changes.yaml; src/catalogue/changes/bridges.ts) in signing mode: what the
// gateway does for a client pinned at a release where listen keys were alive, once the upstream has
// retired them. Its old calls (REST POST/PUT/DELETE, websocket-API userDataStream.start/ping/stop) are
// answered here from ListenKeys, and its listen-key streams are fed from the one subscription the
// gateway holds upstream (UpstreamSubscription), each event put in the client's shape (the change's
// `events`). Which old operation plays which part, which replacement is called and the event shapes
// all come from the catalogue; nothing the client sends is forwarded. One per gateway, made at start.
// The marginListenKeys bridge's keys live here too, each bound to its account (scope), and are fed
// from that account's token-authorised subscription (token-subscriptions.ts) instead.
import type WebSocket from 'ws';
import { fillTemplate, placeholderPath, subscriptionIdField } from '../../catalogue/changes/bridges.js';
import { upstreamIndex } from '../../catalogue/changes/lookup.js';
import type { EventShapes } from '../../catalogue/changes/types.js';
import { durationSeconds } from '../../catalogue/duration.js';
import type { Service } from '../../catalogue/model.js';
import { listenKeyOf } from '../../catalogue/user-data-streams.js';
import type { Logger } from '../../log.js';
import type { Secret } from '../../upstream/signing/secret.js';
import type { Signer } from '../../upstream/signing/signers.js';
import { signWsParams } from '../../upstream/signing/ws-api-params.js';
import { GatewayError } from '../errors.js';
import { ListenKeys, type HeldKey } from './listen-keys.js';
import { sameAccount, scopeOf, tokenParts, tokenSubscriptions, type ScopeTemplate, type TokenParts, type TokenSubscriptions } from './token-subscriptions.js';
import { UpstreamSubscription } from './upstream-subscription.js';

/** The bridges' names in changes.yaml. */
export const LISTEN_KEYS = 'listenKeys';
export const MARGIN_LISTEN_KEYS = 'marginListenKeys';

export interface UserDataSettings {
  /** Listen keys per token (1–100). */
  keysPerToken: number;
  /** Listen-key stream connections one token may hold open at once. */
  streamsPerToken: number;
  /** Listen keys in all. */
  keys: number;
  /** How long the upstream subscription is kept after its last listener, ms. */
  lingerMs: number;
  /** Bytes that may wait for a listen-key stream's client (--ws-max-buffered); past it the client is closed 1008. */
  maxBufferedBytes: number;
}

/** The gateway's key for the websocket API (signing mode; the shape of websocket/frame-signing.ts WsSigning). */
export interface BridgeSigning {
  apiKey: Secret;
  signer: Signer;
  recvWindow?: string;
  clock?: () => number;
}

export interface UserDataOptions {
  service: Service;
  /** The release the upstream speaks (the program's). */
  upstreamRelease?: string;
  signing: BridgeSigning;
  /** The websocket API's URL, base and path joined. */
  wsApiUrl: string;
  /** The REST upstream's base URL (where a token is obtained); without it no margin key is bridged. */
  restBase?: string;
  settings: UserDataSettings;
  logger: Logger;
  timeoutMs: number;
  /** The rate limiter's charge of one websocket-API frame (a refusal message, or undefined). */
  charge?(service: string, method: string, params: Readonly<Record<string, unknown>>): string | undefined;
  /** Tests only: a listen key's lifetime (default: the stream's keepAlive.expiresAfter). */
  expiresAfterMs?: number;
  /** Tests only: params sent with every token request (e.g. a short validity, to see renewals happen). */
  tokenParams?: Readonly<Record<string, string>>;
}

/** An old call as the bridge step naming it has it: which bridge, the account its `scope` names, the request's parameters. */
export interface BridgeCall {
  bridge: string;
  scope?: ScopeTemplate;
  params: Readonly<Record<string, unknown>>;
}

/** What an old call is answered: its status and JSON body. */
export interface BridgeAnswer {
  status: number;
  body: unknown;
}

interface Sink {
  client: WebSocket;
  owner: string;
  /** Counted out of its token's streams already (drop may run on a key's end and on the close). */
  dropped?: true;
  combined: boolean;
  keys: Set<string>;
  /** Per subscription feeding it (a margin key's is its account's): the keys it feeds, and the release of its hold. */
  holds: Map<UpstreamSubscription, { keys: Set<string>; release: () => void }>;
}

export class UserDataBridge {
  readonly keys: ListenKeys;
  readonly upstream: UpstreamSubscription;
  /** The margin keys' accounts, each with its subscription (when the catalogue declares marginListenKeys). */
  readonly accounts: TokenSubscriptions | undefined;
  private readonly sinks = new Map<string, Set<Sink>>();
  /** Open listen-key stream connections per token. */
  private readonly streams = new Map<string, number>();
  private readonly clientShape: unknown;
  private readonly expiredShape: unknown;
  /** The listen-key placeholder of the stream template ("listenKey"). */
  private readonly placeholder: string;

  constructor(private readonly o: UserDataOptions, parts: { create: string; close: string; events: EventShapes; stream: string; expiresAfterMs: number; margin?: TokenParts }) {
    const { signing } = o;
    const apiKey = signing.apiKey.reveal();
    this.placeholder = listenKeyOf(parts.stream) ?? 'listenKey';
    this.clientShape = parts.events.client;
    this.expiredShape = parts.events.expired;
    this.keys = new ListenKeys({ perToken: o.settings.keysPerToken, total: o.settings.keys, expiresAfterMs: o.expiresAfterMs ?? parts.expiresAfterMs }, (held) => this.expired(held));
    // Both kinds of subscription carry the same events (the feed's `events`), charged and bounded alike.
    const common = {
      url: o.wsApiUrl, eventPath: placeholderPath(parts.events.upstream, 'event') ?? ['event'], ended: parts.events.ended,
      idField: subscriptionIdField(parts.events.upstream),
      charge: o.charge && ((method: string, params: Readonly<Record<string, unknown>>) => o.charge!(o.service.id, method, params)),
      lingerMs: o.settings.lingerMs, minIntervalMs: 1000, timeoutMs: o.timeoutMs, logger: o.logger,
    };
    this.upstream = new UpstreamSubscription({
      ...common, subscribe: parts.create, unsubscribe: parts.close,
      subscribeParams: () => ({ params: signWsParams({}, signing.signer, { apiKey, now: (signing.clock ?? Date.now)(), recvWindow: signing.recvWindow }) }),
    });
    this.accounts = parts.margin && tokenSubscriptions(parts.margin, { restBase: o.restBase, apiKeyHeader: o.service.apiKeyHeader, apiKey: signing.apiKey, extraParams: o.tokenParams }, common);
  }

  /** Listen keys and upstream subscriptions held now, and upstream calls made. */
  stats(): { listenKeys: number; upstreamSubscriptions: number; upstreamCalls: number } {
    return { listenKeys: this.keys.size, upstreamSubscriptions: this.upstream.active + (this.accounts?.active ?? 0), upstreamCalls: this.upstream.calls + (this.accounts?.calls ?? 0) };
  }

  /**
   * An old call: `action` is the bridge's part (create, renew, close), `owner` the token's name; `call`
   * the step's bridge and the request's parameters (a marginListenKeys call: the account it names).
   */
  act(action: string, owner: string, listenKey: unknown): BridgeAnswer;
  act(action: string, owner: string, listenKey: unknown, call: BridgeCall): BridgeAnswer | Promise<BridgeAnswer>;
  act(action: string, owner: string, listenKey: unknown, call?: BridgeCall): BridgeAnswer | Promise<BridgeAnswer> {
    const account = call?.bridge === MARGIN_LISTEN_KEYS ? call : undefined;
    if (action === 'create') return account ? this.createFor(owner, account) : { status: 200, body: { listenKey: this.keys.create(owner).key } };
    const key = typeof listenKey === 'string' ? listenKey : '';
    // A key answers only to calls of its own account: a margin key is unknown to the spot calls, an isolated one to the cross ones, and so on.
    const mine = this.keys.get(owner, key);
    const held = !mine || !sameAccount(mine.scope, account && (account.scope ?? {}), call?.params ?? {}) ? undefined
      : action === 'renew' ? this.keys.renew(owner, key) : action === 'close' ? this.keys.close(owner, key) : undefined;
    if (!held) throw new GatewayError('invalid', 'This listenKey does not exist.');
    if (action === 'close') {
      this.endKey(key, 1000, 'listen key closed');
      this.accountEnds(held);
    }
    return { status: 200, body: {} };
  }

  /** A margin key: the account must be known (a token obtained for it) before a key is minted for it. */
  private async createFor(owner: string, call: BridgeCall): Promise<BridgeAnswer> {
    if (!this.accounts) throw new GatewayError('gone', 'This gateway does not bridge margin listen keys (it needs the REST upstream and the catalogue\'s token operation).');
    const { scope, missing } = scopeOf(call.scope, call.params);
    if (missing.length) throw new GatewayError('missing', `Mandatory parameter '${missing[0]}' was not sent, was empty/null, or malformed (it names the account the listen key is for).`);
    this.keys.admit(owner, scope); // a refusal costs the upstream nothing
    const refused = await this.accounts.ensure(scope);
    if (refused) return refused; // the exchange's word on the account, as the old call got it
    try {
      return { status: 200, body: { listenKey: this.keys.create(owner, scope).key } };
    } finally {
      if (!this.keys.holdsAccount(scope.id)) this.accounts.forget(scope.id); // the bound was reached meanwhile
    }
  }

  /** Whether every name is a listen key `owner` holds. */
  owns(owner: string, names: readonly string[]): boolean {
    return names.length > 0 && names.every((n) => this.keys.get(owner, n) !== undefined);
  }

  /** Why `owner` may not open another listen-key stream (its bound is reached), else undefined. */
  streamRefusal(owner: string): string | undefined {
    const n = this.streams.get(owner) ?? 0;
    const bound = this.o.settings.streamsPerToken;
    return n < bound ? undefined : `Client token "${owner}" holds ${n} listen-key streams open, the most it may (--user-data-streams-per-token ${bound}): close one first.`;
  }

  /** Feed an accepted client with the events of its listen keys until it or they end. */
  feed(client: WebSocket, keys: readonly string[], combined: boolean, owner: string): void {
    const sink: Sink = { client, owner, combined, keys: new Set(keys), holds: new Map() };
    this.streams.set(owner, (this.streams.get(owner) ?? 0) + 1);
    for (const k of sink.keys) {
      let set = this.sinks.get(k);
      if (!set) this.sinks.set(k, (set = new Set()));
      set.add(sink);
    }
    for (const k of sink.keys) {
      const scope = this.keys.get(owner, k)?.scope;
      const sub = scope && this.accounts ? this.accounts.subscription(scope.id) : this.upstream;
      let h = sink.holds.get(sub);
      if (!h) {
        const fed = new Set<string>();
        sink.holds.set(sub, (h = { keys: fed, release: sub.hold((event) => this.send(sink, fed, event)) }));
      }
      h.keys.add(k);
    }
    client.on('ping', (d) => client.pong(d));
    client.on('error', () => {});
    client.once('close', () => this.drop(sink));
  }

  /** One upstream event to the keys of a stream that one subscription feeds. */
  private send(sink: Sink, keys: ReadonlySet<string>, event: Record<string, unknown>): void {
    const { client } = sink;
    if (client.readyState !== client.OPEN) return;
    // A client that stopped reading is closed like on every other websocket: nothing piles up for it.
    const limit = this.o.settings.maxBufferedBytes;
    if (client.bufferedAmount > limit) {
      this.o.logger.warn(`user data: a listen-key stream's client is too slow (more than ${limit} bytes waiting), closed with 1008`);
      return void client.close(1008, `client too slow: more than ${limit} bytes waiting`);
    }
    const bare = fillTemplate(this.clientShape, { event });
    for (const k of keys) client.send(JSON.stringify(sink.combined ? { stream: k, data: bare } : bare));
  }

  /** Close everything (the gateway is closing). */
  close(): void {
    for (const set of this.sinks.values()) for (const s of set) s.client.close(1001, 'gateway shutting down');
    this.keys.clear();
    this.upstream.close();
    this.accounts?.close();
  }

  /** A margin key ended: its account's subscription and token go with the account's last key. */
  private accountEnds(held: HeldKey): void {
    if (held.scope && !this.keys.holdsAccount(held.scope.id)) this.accounts?.forget(held.scope.id);
  }

  private drop(sink: Sink): void {
    if (!sink.dropped) {
      sink.dropped = true;
      const n = (this.streams.get(sink.owner) ?? 1) - 1;
      if (n > 0) this.streams.set(sink.owner, n);
      else this.streams.delete(sink.owner);
    }
    for (const h of sink.holds.values()) h.release();
    sink.holds.clear();
    for (const k of sink.keys) {
      const set = this.sinks.get(k);
      set?.delete(sink);
      if (set && !set.size) this.sinks.delete(k);
    }
  }

  /** A key expired: its streams get the old expiry event and no more events. */
  private expired(held: HeldKey): void {
    const event = fillTemplate(this.expiredShape, { eventTime: Date.now(), [this.placeholder]: held.key });
    for (const s of this.sinks.get(held.key) ?? []) {
      if (s.client.readyState === s.client.OPEN && this.expiredShape !== undefined) s.client.send(JSON.stringify(s.combined ? { stream: held.key, data: event } : event));
    }
    this.endKey(held.key);
    this.accountEnds(held);
  }

  /** Stop feeding a key; a connection left with no key releases the subscription (and is closed when `code` is given). */
  private endKey(key: string, code?: number, reason?: string): void {
    for (const s of [...(this.sinks.get(key) ?? [])]) {
      s.keys.delete(key);
      for (const [sub, h] of s.holds) {
        if (!h.keys.delete(key) || h.keys.size) continue;
        h.release(); // no key of that subscription left on this stream
        s.holds.delete(sub);
      }
      if (s.keys.size) continue;
      this.drop(s);
      if (code !== undefined) s.client.close(code, reason);
    }
    this.sinks.delete(key);
  }
}

/**
 * The bridge of a service whose changes declare the listenKeys bridge, or undefined when they do not
 * (or the upstream speaks a release where listen keys are still alive: nothing is bridged then).
 */
export function userDataBridge(o: UserDataOptions): UserDataBridge | undefined {
  const { service } = o;
  const u = upstreamIndex(service, o.upstreamRelease);
  const parts: Partial<Record<string, { via: string; events?: EventShapes; operation: string }>> = {};
  for (const c of service.changes.changes) {
    if (c.index > u) continue;
    for (const s of c.request) if (s.kind === 'bridge' && s.name === LISTEN_KEYS) parts[s.action] ??= { via: s.via, events: c.events, operation: c.operation };
  }
  const { create, close, feed } = parts;
  if (!create || !close || !feed?.events) return undefined;
  const margin = tokenParts(service, u, MARGIN_LISTEN_KEYS);
  const stream = feed.operation.replace(/^stream /, '');
  const template = service.streams.find((s) => s.name === stream);
  if (!template?.keepAlive) return undefined; // the loader requires it where a keep-alive endpoint exists
  const expiresAfterMs = durationSeconds(template.keepAlive.expiresAfter) * 1000;
  const method = (via: string) => via.replace(/^ws-api /, '');
  return new UserDataBridge(o, { create: method(create.via), close: method(close.via), events: feed.events, stream, expiresAfterMs, margin });
}
