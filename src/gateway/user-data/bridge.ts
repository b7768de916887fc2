// The listenKeys bridge (changes.yaml; src/catalogue/changes/bridges.ts) in signing mode: what the
// gateway does for a client pinned at a release where listen keys were alive, once the upstream has
// retired them. Its old calls (REST POST/PUT/DELETE, websocket-API userDataStream.start/ping/stop) are
// answered from the store (store.ts: the listen keys, the streams per token and the one subscription
// the gateway holds upstream, in this process or, under --workers, in the primary), and its listen-key
// streams are fed from that subscription, each event put in the client's shape (the change's
// `events`). Which old operation plays which part, which replacement is called and the event shapes
// all come from the catalogue; nothing the client sends is forwarded. Made at start, redefined by a reload.
import type WebSocket from 'ws';
import { fillTemplate, placeholderPath, subscriptionIdField } from '../../catalogue/changes/bridges.js';
import { upstreamIndex } from '../../catalogue/changes/lookup.js';
import { durationSeconds } from '../../catalogue/duration.js';
import type { Service } from '../../catalogue/model.js';
import { listenKeyOf } from '../../catalogue/user-data-streams.js';
import type { Logger } from '../../log.js';
import type { Secret } from '../../upstream/signing/secret.js';
import type { Signer } from '../../upstream/signing/signers.js';
import { signWsParams } from '../../upstream/signing/ws-api-params.js';
import type { BridgeAnswer, KeyEnd, StoreDefinition, StoreListener, UserDataStore } from './store.js';

export type { BridgeAnswer } from './store.js';

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
  /** Tests only: a listen key's lifetime (default: the stream's keepAlive.expiresAfter). */
  expiresAfterMs?: number;
}

interface Sink {
  client: WebSocket;
  owner: string;
  /** Counted out of its token's streams already (drop may run on a key's end and on the close). */
  dropped?: true;
  combined: boolean;
  keys: Set<string>;
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

  constructor(private def: StoreDefinition, private maxBufferedBytes: number, private readonly logger: Logger, makeStore: (l: StoreListener) => UserDataStore) {
    this.store = makeStore({ event: (e) => this.event(e), ended: (k, how) => this.ended(k, how), watching: () => this.sinks.keys() });
    this.store.define(def);
  }

  /** An old call: `action` is the bridge's part (create, renew, close), `owner` the token's name. */
  act(action: string, owner: string, listenKey: unknown): Promise<BridgeAnswer> {
    return this.store.act(action, owner, typeof listenKey === 'string' ? listenKey : '');
  }

  /** Admit a listen-key stream: every name is a key `owner` holds and its bound of streams is not reached (else a GatewayError). */
  admit(owner: string, names: readonly string[]): Promise<void> {
    return this.store.open(owner, names);
  }

  /** An admitted stream that never became a client (it left during the upgrade). */
  abandon(owner: string): void {
    this.store.shut(owner);
  }

  /** Feed an admitted client with the events of its listen keys until it or they end. */
  feed(client: WebSocket, keys: readonly string[], combined: boolean, owner: string): void {
    const sink: Sink = { client, owner, combined, keys: new Set(keys) };
    for (const k of sink.keys) {
      let set = this.sinks.get(k);
      if (!set) this.sinks.set(k, (set = new Set()));
      set.add(sink);
    }
    if (this.all.add(sink).size === 1) this.store.hold();
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

  private event(event: Record<string, unknown>): void {
    const limit = this.maxBufferedBytes;
    let bare: unknown;
    for (const s of this.all) {
      const { client } = s;
      if (client.readyState !== client.OPEN) continue;
      // A client that stopped reading is closed like on every other websocket: nothing piles up for it.
      if (client.bufferedAmount > limit) {
        this.logger.warn(`user data: a listen-key stream's client is too slow (more than ${limit} bytes waiting), closed with 1008`);
        this.closeSink(s, 1008, `client too slow: more than ${limit} bytes waiting`);
        continue;
      }
      bare ??= fillTemplate(this.def.events.client, { event });
      for (const k of s.keys) client.send(JSON.stringify(s.combined ? { stream: k, data: bare } : bare));
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
      s.keys.delete(key);
      if (s.keys.size) continue;
      const close = CLOSES[how];
      if (close) this.closeSink(s, ...close);
      else this.drop(s);
    }
    this.sinks.delete(key);
  }

  private closeSink(s: Sink, code: number, reason: string): void {
    this.drop(s);
    s.client.close(code, reason);
  }

  private drop(sink: Sink): void {
    if (sink.dropped) return;
    sink.dropped = true;
    this.store.shut(sink.owner);
    if (this.all.delete(sink) && this.all.size === 0) this.store.release();
    for (const k of sink.keys) {
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
  const parts: Partial<Record<string, { via: string; events?: StoreDefinition['events']; operation: string }>> = {};
  for (const c of service.changes.changes) {
    if (c.index > u) continue;
    for (const s of c.request) if (s.kind === 'bridge' && s.name === LISTEN_KEYS) parts[s.action] ??= { via: s.via, events: c.events, operation: c.operation };
  }
  const { create, close, feed } = parts;
  if (!create || !close || !feed?.events) return undefined;
  const stream = feed.operation.replace(/^stream /, '');
  const template = service.streams.find((s) => s.name === stream);
  if (!template?.keepAlive) return undefined; // the loader requires it where a keep-alive endpoint exists
  const method = (via: string) => via.replace(/^ws-api /, '');
  const { settings } = o;
  return {
    url: o.wsApiUrl, subscribe: method(create.via), unsubscribe: method(close.via), stream,
    events: feed.events, eventPath: placeholderPath(feed.events.upstream, 'event') ?? ['event'], idField: subscriptionIdField(feed.events.upstream),
    limits: {
      keysPerToken: settings.keysPerToken, keys: settings.keys, streamsPerToken: settings.streamsPerToken, lingerMs: settings.lingerMs,
      expiresAfterMs: o.expiresAfterMs ?? durationSeconds(template.keepAlive.expiresAfter) * 1000,
    },
    timeoutMs: o.timeoutMs,
  };
}
