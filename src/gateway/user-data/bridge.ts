// The listenKeys bridge (changes.yaml; src/catalogue/changes/bridges.ts) in signing mode: what the
// gateway does for a client pinned at a release where listen keys were alive, once the upstream has
// retired them. Its old calls (REST POST/PUT/DELETE, websocket-API userDataStream.start/ping/stop) are
// answered here from ListenKeys, and its listen-key streams are fed from the one subscription the
// gateway holds upstream (UpstreamSubscription), each event put in the client's shape (the change's
// `events`). Which old operation plays which part, which replacement is called and the event shapes
// all come from the catalogue; nothing the client sends is forwarded. One per gateway, made at start.
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
import { UpstreamSubscription } from './upstream-subscription.js';

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

export interface UserDataOptions {
  service: Service;
  /** The release the upstream speaks (the program's). */
  upstreamRelease?: string;
  signing: BridgeSigning;
  /** The websocket API's URL, base and path joined. */
  wsApiUrl: string;
  settings: UserDataSettings;
  logger: Logger;
  timeoutMs: number;
  /** The rate limiter's charge of one websocket-API frame (a refusal message, or undefined). */
  charge?(service: string, method: string, params: Readonly<Record<string, unknown>>): string | undefined;
  /** Tests only: a listen key's lifetime (default: the stream's keepAlive.expiresAfter). */
  expiresAfterMs?: number;
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
  release?: () => void;
}

export class UserDataBridge {
  readonly keys: ListenKeys;
  readonly upstream: UpstreamSubscription;
  private readonly sinks = new Map<string, Set<Sink>>();
  /** Open listen-key stream connections per token. */
  private readonly streams = new Map<string, number>();
  private readonly clientShape: unknown;
  private readonly expiredShape: unknown;
  /** The listen-key placeholder of the stream template ("listenKey"). */
  private readonly placeholder: string;

  constructor(private readonly o: UserDataOptions, parts: { create: string; close: string; events: EventShapes; stream: string; expiresAfterMs: number }) {
    const { signing } = o;
    const apiKey = signing.apiKey.reveal();
    this.placeholder = listenKeyOf(parts.stream) ?? 'listenKey';
    this.clientShape = parts.events.client;
    this.expiredShape = parts.events.expired;
    this.keys = new ListenKeys({ perToken: o.settings.keysPerToken, total: o.settings.keys, expiresAfterMs: o.expiresAfterMs ?? parts.expiresAfterMs }, (held) => this.expired(held));
    this.upstream = new UpstreamSubscription({
      url: o.wsApiUrl, subscribe: parts.create, unsubscribe: parts.close,
      signedParams: () => signWsParams({}, signing.signer, { apiKey, now: (signing.clock ?? Date.now)(), recvWindow: signing.recvWindow }),
      eventPath: placeholderPath(parts.events.upstream, 'event') ?? ['event'], ended: parts.events.ended,
      idField: subscriptionIdField(parts.events.upstream),
      charge: o.charge && ((method, params) => o.charge!(o.service.id, method, params)),
      lingerMs: o.settings.lingerMs, minIntervalMs: 1000, timeoutMs: o.timeoutMs, logger: o.logger,
    });
  }

  /** Listen keys and upstream subscriptions held now, and upstream calls made. */
  stats(): { listenKeys: number; upstreamSubscriptions: number; upstreamCalls: number } {
    return { listenKeys: this.keys.size, upstreamSubscriptions: this.upstream.active, upstreamCalls: this.upstream.calls };
  }

  /** An old call: `action` is the bridge's part (create, renew, close), `owner` the token's name. */
  act(action: string, owner: string, listenKey: unknown): BridgeAnswer {
    if (action === 'create') return { status: 200, body: { listenKey: this.keys.create(owner).key } };
    const key = typeof listenKey === 'string' ? listenKey : '';
    const held = action === 'renew' ? this.keys.renew(owner, key) : action === 'close' ? this.keys.close(owner, key) : undefined;
    if (!held) throw new GatewayError('invalid', 'This listenKey does not exist.');
    if (action === 'close') this.endKey(key, 1000, 'listen key closed');
    return { status: 200, body: {} };
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
    const sink: Sink = { client, owner, combined, keys: new Set(keys) };
    this.streams.set(owner, (this.streams.get(owner) ?? 0) + 1);
    for (const k of sink.keys) {
      let set = this.sinks.get(k);
      if (!set) this.sinks.set(k, (set = new Set()));
      set.add(sink);
    }
    const limit = this.o.settings.maxBufferedBytes;
    sink.release = this.upstream.hold((event) => {
      if (client.readyState !== client.OPEN) return;
      // A client that stopped reading is closed like on every other websocket: nothing piles up for it.
      if (client.bufferedAmount > limit) {
        this.o.logger.warn(`user data: a listen-key stream's client is too slow (more than ${limit} bytes waiting), closed with 1008`);
        return void client.close(1008, `client too slow: more than ${limit} bytes waiting`);
      }
      const bare = fillTemplate(this.clientShape, { event });
      for (const k of sink.keys) client.send(JSON.stringify(combined ? { stream: k, data: bare } : bare));
    });
    client.on('ping', (d) => client.pong(d));
    client.on('error', () => {});
    client.once('close', () => this.drop(sink));
  }

  /** Close everything (the gateway is closing). */
  close(): void {
    for (const set of this.sinks.values()) for (const s of set) s.client.close(1001, 'gateway shutting down');
    this.keys.clear();
    this.upstream.close();
  }

  private drop(sink: Sink): void {
    if (!sink.dropped) {
      sink.dropped = true;
      const n = (this.streams.get(sink.owner) ?? 1) - 1;
      if (n > 0) this.streams.set(sink.owner, n);
      else this.streams.delete(sink.owner);
    }
    sink.release?.();
    sink.release = undefined;
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
  }

  /** Stop feeding a key; a connection left with no key releases the subscription (and is closed when `code` is given). */
  private endKey(key: string, code?: number, reason?: string): void {
    for (const s of [...(this.sinks.get(key) ?? [])]) {
      s.keys.delete(key);
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
  const stream = feed.operation.replace(/^stream /, '');
  const template = service.streams.find((s) => s.name === stream);
  if (!template?.keepAlive) return undefined; // the loader requires it where a keep-alive endpoint exists
  const expiresAfterMs = durationSeconds(template.keepAlive.expiresAfter) * 1000;
  const method = (via: string) => via.replace(/^ws-api /, '');
  return new UserDataBridge(o, { create: method(create.via), close: method(close.via), events: feed.events, stream, expiresAfterMs });
}

