// What the server sees of a websocket gateway: its options, its counts and its methods. Kept apart
// from the implementation so the server's type imports do not load it (it is imported lazily).
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WsMethod } from '../../catalogue/model.js';
import type { ReleaseView } from '../../catalogue/resolve.js';
import type { Logger } from '../../log.js';
import type { CrossSiteGuard } from '../stages/cross-site.js';
import type { Drift } from '../drift/drift.js';
import type { GatewayError } from '../errors.js';
import type { Metrics } from '../observe/metrics.js';
import type { WsSecurity } from './security.js';
import type { UserDataBridge } from '../user-data/bridge.js';
import type { UserDataSubscriptions } from './user-data-subscriptions.js';

export interface WebsocketOptions {
  views: ReleaseView[];
  /** Upstream overrides as in GatewayConfig.upstreams: "<service>.streams" / "<service>.wsApi" → base URL. */
  upstreams: Record<string, string>;
  strict: boolean;
  /** Upstream handshake timeout. */
  timeoutMs: number;
  logger: Logger;
  /** Where upgrades are recorded (the http_request_duration_seconds histogram). */
  metrics: Metrics;
  /** Largest client message (default 1 MiB). */
  maxPayload?: number;
  /** Bytes allowed to wait for a slow client before it is closed with 1008 (default 4 MiB). */
  maxBufferedBytes?: number;
  /** How long a client may be held for an upstream that does not read before both are closed (default 10 s). */
  maxHoldMs?: number;
  /** How long shutdown waits for closing handshakes before terminating (default 1 s). */
  shutdownGraceMs?: number;
  /** The rate limiter: websocket-API request frames count against the same limits as REST. */
  frameLimits?: { chargeFrame(service: string, method: WsMethod, params: Readonly<Record<string, unknown>>, authorization?: string): GatewayError | undefined };
  /** [wssign] Signing mode and client tokens (SecurityHooks.websocket), and the served program's cross-site guard. */
  security?: WsSecurity;
  crossSite?: CrossSiteGuard;
  /** [wssign] Tests only: keep-alive interval of user-data streams in signing mode (default: the catalogue's keepAlive.interval). */
  userDataKeepAliveMs?: number;
  /** [user data] The listen-key bridge (signing mode, an upstream past the listen keys' retirement). */
  userData?: UserDataBridge;
  /** [user data] Listen keys one stream connection may carry (GATEWAY_USER_DATA_KEYS_PER_TOKEN). */
  maxListenKeys?: number;
  /** [user data] User-data subscriptions per token made with the gateway's key (signing mode; kept across reloads). */
  userDataSubscriptions?: UserDataSubscriptions;
  /** [version changes] The release each service's upstream speaks (the program's migrations; absent: nothing migrates). */
  upstreamRelease?: ReadonlyMap<string, string>;
  /** Where methods and stream names the catalogue does not know are counted (GET /_gateway/drift). */
  drift?: Pick<Drift, 'unknownOperation'>;
}

export const DEFAULT_MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

export interface WebsocketStats {
  /** Connections relaying now. */
  open: number;
  /** Upgrades waiting for their upstream. */
  connecting: number;
  accepted: number;
  refused: number;
  /** Connections the gateway closed because the client read too slowly. */
  slowClients: number;
  /** Connections closed after a reload because what they relayed is no longer served. */
  reloadClosed: number;
}

/** Open connections whose stream, websocket API or release a reload took away. */
export interface AfterReload {
  /** Connections relaying something the new program does not serve. */
  gone: number;
  /** Of those, closed (1001, the reason naming the stream and the release). */
  closed: number;
}

export interface WebsocketGateway {
  /** Listener for the http server's 'upgrade' event. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  stats(): WebsocketStats;
  /** Answer an upgrade with `e` (an HTTP refusal in the service's envelope) and close the socket. */
  refuse(req: IncomingMessage, socket: Duplex, e: GatewayError): void;
  /**
   * A reload swapped in a new program: check every open connection of this (older) program against
   * `next`, the views now serving its release (undefined: that release is no longer served), and
   * close the ones whose subject is gone when `close` is set; the others keep running.
   */
  afterReload(next: ReleaseView[] | undefined, close: boolean): AfterReload;
  /** Close (1008) every open connection of these client tokens (a reload removed them or narrowed their rights); how many. */
  revoke(tokens: ReadonlySet<string>): number;
  /** Refuse new upgrades, close every connection (terminating laggards), resolve when all are gone. */
  close(): Promise<void>;
}
