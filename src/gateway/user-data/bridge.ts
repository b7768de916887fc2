// The listenKeys bridge (changes.yaml; src/catalogue/changes/bridges.ts) in signing mode: what the
// gateway does for a client pinned at a release where listen keys were alive, once the upstream has
// retired them. Its old calls (REST POST/PUT/DELETE, websocket-API userDataStream.start/ping/stop) are
// answered from the store (store.ts: the listen keys, the streams per token and the one subscription
// the gateway holds upstream, in this process or, under --workers, in the primary), and its listen-key
// streams are fed from that subscription, each event put in the client's shape (the change's
// `events`). Which old operation plays which part, which replacement is called and the event shapes
// all come from the catalogue; nothing the client sends is forwarded. Made at start, redefined by a reload.
// The marginListenKeys bridge's keys are each bound to a margin account and fed from that account's
// token-made subscription (token-subscriptions.ts): a stream's events come from its keys' accounts.
import type WebSocket from 'ws';
import { bridgeStepsUpTo, fillTemplate, placeholderPath, subscriptionIdField } from '../../catalogue/changes/bridges.js';
import { upstreamIndex } from '../../catalogue/changes/lookup.js';
import { wsApiMethod } from '../../catalogue/changes/ws-operations.js';
import { durationSeconds } from '../../catalogue/duration.js';
import type { Service } from '../../catalogue/model.js';
import { listenKeyOf } from '../../catalogue/user-data-streams.js';
import type { Logger } from '../../log.js';
import type { Secret } from '../../upstream/signing/secret.js';
import type { Signer } from '../../upstream/signing/signers.js';
import { signWsParams } from '../../upstream/signing/ws-api-params.js';
import { MARGIN_LISTEN_KEYS, type BridgeAnswer, type BridgeCall, type KeyEnd, type StoreDefinition, type StoreListener, type UserDataStore } from './store.js';
import { tokenParts } from './token-subscriptions.js';

export type { BridgeAnswer, BridgeCall } from './store.js';

/** The bridge's name in changes.yaml. */
export const LISTEN_KEYS = 'listenKeys';

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

/** The subscribe call's params, signed with the gateway's key (a fresh timestamp each call). */
export function signedSubscribeParams(signing: BridgeSigning): () => Record<string, unknown> {
  const apiKey = signing.apiKey.reveal();
  return () => signWsParams({}, signing.signer, { apiKey, now: (signing.clock ?? Date.now)(), recvWindow: signing.recvWindow });
}

export interface UserDataOptions {
  service: Service;
  /** The release the upstream speaks (the program's). */
  upstreamRelease?: string;
  /** The websocket API's URL, base and path joined. */
  wsApiUrl: string;
  settings: UserDataSettings;
  timeoutMs: number;
  /** The REST upstream's base URL and the service's API-key header (where margin tokens are obtained). */
  restBase?: string;
  /** Tests only: a listen key's lifetime (default: the stream's keepAlive.expiresAfter). */
  expiresAfterMs?: number;
  /** Tests only: params sent with every token request (e.g. a short validity, to see renewals happen). */
  tokenParams?: Readonly<Record<string, string>>;
}

interface Sink {
  client: WebSocket;
  owner: string;
  /** Counted out of its token's streams already (drop may run on a key's end and on the close). */
  dropped?: true;
  combined: boolean;
  /** Its keys, each with its account ('' the gateway's own subscription). */
  keys: Map<string, string>;
}

/** How a key's streams are closed when it ends (an expired key's stay open, as the exchange's did). */
const CLOSES: Record<KeyEnd, [number, string] | undefined> = {
  expired: undefined,
  closed: [1000, 'listen key closed'],
  revoked: [1008, 'client token revoked'],
};

export class UserDataBridge {
  private readonly store: UserDataStore;
  private readonly sinks = new Map<string, Set<Sink>>();
  private readonly all = new Set<Sink>();
  /** Streams here fed by each account's subscription ('' the gateway's own): held while one is. */
  private readonly fed = new Map<string, number>();

  constructor(private def: StoreDefinition, private maxBufferedBytes: number, private readonly logger: Logger, makeStore: (l: StoreListener) => UserDataStore) {
    this.store = makeStore({ event: (e, account) => this.event(e, account), ended: (k, how) => this.ended(k, how), watching: () => this.sinks.keys() });
    this.store.define(def);
  }

  /**
   * An old call: `action` is the bridge's part (create, renew, close), `owner` the token's name; `call`
   * the step's bridge and the request's parameters (a marginListenKeys call: the account it names).
   */
  act(action: string, owner: string, listenKey: unknown, call?: BridgeCall): Promise<BridgeAnswer> {
    return this.store.act(action, owner, typeof listenKey === 'string' ? listenKey : '', call);
  }

  /** Admit a listen-key stream: every name is a key `owner` holds and its bound of streams is not reached (else a GatewayError); each key's account. */
  admit(owner: string, names: readonly string[]): Promise<string[]> {
    return this.store.open(owner, names);
  }

  /** An admitted stream that never became a client (it left during the upgrade). */
  abandon(owner: string): void {
    this.store.shut(owner);
  }

  /** Feed an admitted client with the events of its listen keys (`accounts`: admit()'s answer) until it or they end. */
  feed(client: WebSocket, keys: readonly string[], accounts: readonly string[], combined: boolean, owner: string): void {
    const sink: Sink = { client, owner, combined, keys: new Map(keys.map((k, i) => [k, accounts[i] ?? ''])) };
    for (const k of sink.keys.keys()) {
      let set = this.sinks.get(k);
      if (!set) this.sinks.set(k, (set = new Set()));
      set.add(sink);
    }
    this.all.add(sink);
    for (const a of new Set(sink.keys.values())) this.take(a);
    client.on('ping', (d) => client.pong(d));
    client.on('error', () => {});
    client.once('close', () => this.drop(sink));
  }

  /** Tokens a reload removed or took the user-data right from: their streams are closed (1008) and their keys forgotten. */
  revoke(owners: readonly string[]): number {
    if (!owners.length) return 0;
    const gone = new Set(owners);
    let closed = 0;
    for (const s of [...this.all]) if (gone.has(s.owner)) closed++, this.closeSink(s, 1008, 'client token revoked');
    this.store.revoke(owners);
    return closed;
  }

  /** A reload's definition: new bounds apply, a different subscription replaces the old one; keys are kept. */
  redefine(def: StoreDefinition, maxBufferedBytes: number): void {
    this.maxBufferedBytes = maxBufferedBytes;
    if (JSON.stringify(def) === JSON.stringify(this.def)) return;
    this.def = def;
    this.store.define(def);
  }

  /** Close everything (the gateway is closing). */
  close(): void {
    for (const s of [...this.all]) s.client.close(1001, 'gateway shutting down');
    this.store.close();
  }

  private event(event: Record<string, unknown>, account: string): void {
    const limit = this.maxBufferedBytes;
    let bare: unknown;
    for (const s of this.all) {
      const { client } = s;
      if (client.readyState !== client.OPEN) continue;
      const keys = [...s.keys].filter(([, a]) => a === account).map(([k]) => k);
      if (!keys.length) continue;
      // A client that stopped reading is closed like on every other websocket: nothing piles up for it.
      if (client.bufferedAmount > limit) {
        this.logger.warn(`user data: a listen-key stream's client is too slow (more than ${limit} bytes waiting), closed with 1008`);
        this.closeSink(s, 1008, `client too slow: more than ${limit} bytes waiting`);
        continue;
      }
      bare ??= fillTemplate(this.def.events.client, { event });
      for (const k of keys) client.send(JSON.stringify(s.combined ? { stream: k, data: bare } : bare));
    }
  }

  /** A key ended: an expired key's streams get the old expiry event first; a connection left with no key is closed as CLOSES says. */
  private ended(key: string, how: KeyEnd): void {
    const set = this.sinks.get(key);
    if (!set) return;
    const shape = this.def.events.expired;
    if (how === 'expired' && shape !== undefined) {
      const event = fillTemplate(shape, { eventTime: Date.now(), [listenKeyOf(this.def.stream) ?? 'listenKey']: key });
      for (const s of set) if (s.client.readyState === s.client.OPEN) s.client.send(JSON.stringify(s.combined ? { stream: key, data: event } : event));
    }
    for (const s of [...set]) {
      const account = s.keys.get(key);
      s.keys.delete(key);
      if (account !== undefined && ![...s.keys.values()].includes(account)) this.give(account); // no key of that account left on this stream
      if (s.keys.size) continue;
      const close = CLOSES[how];
      if (close) this.closeSink(s, ...close);
      else this.drop(s);
    }
    this.sinks.delete(key);
  }

  /** One more stream here fed by `account`'s subscription: the first holds it. */
  private take(account: string): void {
    const n = this.fed.get(account) ?? 0;
    this.fed.set(account, n + 1);
    if (n === 0) this.store.hold(account);
  }

  /** One stream fewer fed by `account`'s subscription: the last releases it. */
  private give(account: string): void {
    const n = (this.fed.get(account) ?? 1) - 1;
    if (n > 0) return void this.fed.set(account, n);
    this.fed.delete(account);
    this.store.release(account);
  }

  private closeSink(s: Sink, code: number, reason: string): void {
    this.drop(s);
    s.client.close(code, reason);
  }

  private drop(sink: Sink): void {
    if (sink.dropped) return;
    sink.dropped = true;
    this.store.shut(sink.owner);
    this.all.delete(sink);
    for (const a of new Set(sink.keys.values())) this.give(a);
    for (const k of sink.keys.keys()) {
      const set = this.sinks.get(k);
      set?.delete(sink);
      if (set && !set.size) this.sinks.delete(k);
    }
  }
}

/**
 * The store definition of a service whose changes declare the listenKeys bridge, or undefined when
 * they do not (or the upstream speaks a release where listen keys are still alive: nothing is bridged then).
 */
export function bridgeDefinition(o: UserDataOptions): StoreDefinition | undefined {
  const { service } = o;
  const u = upstreamIndex(service, o.upstreamRelease);
  const { create, close, feed } = bridgeStepsUpTo(service, u, LISTEN_KEYS);
  const events = feed?.change.events;
  if (!create || !close || !events) return undefined;
  const stream = feed.change.operation.replace(/^stream /, '');
  const template = service.streams.find((s) => s.name === stream);
  if (!template?.keepAlive) return undefined; // the loader requires it where a keep-alive endpoint exists
  const { settings } = o;
  return {
    url: o.wsApiUrl, subscribe: wsApiMethod(create.step.via), unsubscribe: wsApiMethod(close.step.via), stream,
    events, eventPath: placeholderPath(events.upstream, 'event') ?? ['event'], idField: subscriptionIdField(events.upstream),
    limits: {
      keysPerToken: settings.keysPerToken, keys: settings.keys, streamsPerToken: settings.streamsPerToken, lingerMs: settings.lingerMs,
      expiresAfterMs: o.expiresAfterMs ?? durationSeconds(template.keepAlive.expiresAfter) * 1000,
    },
    timeoutMs: o.timeoutMs,
    ...marginOf(o, u),
  };
}

/** The marginListenKeys parts of a definition, when the catalogue declares the bridge with its token. */
function marginOf(o: UserDataOptions, u: number): Pick<StoreDefinition, 'margin'> {
  const parts = tokenParts(o.service, u, MARGIN_LISTEN_KEYS);
  return parts ? { margin: { ...parts, restBase: o.restBase, apiKeyHeader: o.service.apiKeyHeader, ...(o.tokenParams && { tokenParams: o.tokenParams }) } } : {};
}
