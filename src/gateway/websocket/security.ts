// The websocket side of signing mode and client tokens, composed for one websocket gateway: the
// upgrade check (upgrade-auth.ts), the per-frame token check and signing of websocket-API requests
// (frame-signing.ts), and the keep-alive of user-data streams (user-data.ts). Absent (undefined)
// when neither signing nor tokens are configured: websockets then run exactly as without it.
import type { IncomingMessage } from 'node:http';
import type { ReleaseView } from '../../catalogue/resolve.js';
import type { Logger } from '../../log.js';
import type { AwaitingInspect, Inspect } from '../../upstream/ws-relay.js';
import type { TokenEntry } from '../client-auth/tokens.js';
import type { CrossSiteGuard } from '../stages/cross-site.js';
import { signingInspect, supplyParams, type WsSigning } from './frame-signing.js';
import type { WsApiChecker } from './frames.js';
import { authenticateUpgrade } from './upgrade-auth.js';
import { userDataKeeper } from './user-data.js';
import type { UserDataBridge } from '../user-data/bridge.js';
import { GatewayError } from '../errors.js';
import type { UserDataSubscriptions } from './user-data-subscriptions.js';

export type { WsSigning } from './frame-signing.js';

/** What signing mode and client tokens give the websocket side (SecurityHooks.websocket). */
export interface WsSecurity {
  /** Client tokens (GATEWAY_TOKENS_FILE), when configured. */
  tokens?: readonly TokenEntry[];
  /** The gateway's credentials (signing mode). */
  signing?: WsSigning;
}

export interface WsSecurityOptions {
  security?: WsSecurity;
  /** The served program's cross-site guard (its credentialed services). */
  crossSite?: CrossSiteGuard;
  views: ReleaseView[];
  upstreams: Record<string, string>;
  timeoutMs: number;
  logger: Logger;
  /** Tests only: keep-alive interval of user-data streams (default: the stream's keepAlive.interval in the catalogue). */
  userDataKeepAliveMs?: number;
  /** [user data] The listen-key bridge (signing mode, an upstream past the listen keys' retirement). */
  userData?: UserDataBridge;
  /** [user data] Listen keys one stream connection may carry (GATEWAY_USER_DATA_KEYS_PER_TOKEN). */
  maxListenKeys?: number;
  /** [user data] User-data subscriptions per token made with the gateway's key. */
  userDataSubscriptions?: UserDataSubscriptions;
}

/** What signing mode and tokens add to a websocket-API connection. */
export interface WsApiHooks {
  /** Token check per frame, catalogue check, signing (a bridged call may answer later). */
  inspect: AwaitingInspect;
  /** [user data] Reads each upstream frame (the answers that change the connection's user-data subscriptions). */
  observeDown?: (data: Buffer) => void;
  /** [user data] Called once the connection is open; returns what to call when it ends. */
  opened?: () => () => void;
}

/** What the websocket gateway asks of it on each upgrade (index.ts, admission.ts). */
export interface WsGuard {
  /** Check the upgrade request (401 / 403 as a GatewayError); the client's token entry, if tokens are configured. */
  admitUpgrade(req: IncomingMessage): TokenEntry | undefined;
  /** A websocket-API connection's hooks: token check per frame, catalogue check, signing, user-data subscriptions; `bridged`: the methods the listen-key bridge answers. */
  wsApiHooks(checker: WsApiChecker, check: Inspect, token: TokenEntry | undefined, bridged?: ReadonlyMap<string, string>): WsApiHooks;
  /**
   * For a stream connection: what to call once it is open (keeps its user-data streams alive) and
   * which returns what to call when it ends; undefined when it carries none.
   */
  streamsOpened(names: readonly string[], templates: readonly string[]): (() => () => void) | undefined;
}

/** The methods that end a user-data subscription at the view's release (named in a refusal). */
const endingMethods = (view: ReleaseView) => view.wsMethods.filter((m) => m.subscription?.role === 'ends').map((m) => m.name);

export function websocketSecurity(o: WsSecurityOptions): WsGuard | undefined {
  const { security } = o;
  if (!security?.tokens && !security?.signing) return undefined;
  const { signing, tokens } = security;
  const signed = signing && o.views.find((v) => v.service.id === signing.service);
  const keeper = signing && signed
    ? userDataKeeper({ view: signed, upstreams: o.upstreams, apiKey: signing.apiKey, intervalMs: o.userDataKeepAliveMs, timeoutMs: o.timeoutMs, logger: o.logger })
    : undefined;
  return {
    admitUpgrade: (req) => authenticateUpgrade({ tokens, crossSite: o.crossSite, service: signed?.service.id }, req),
    wsApiHooks(checker, check, token, bridged) {
      supplyParams(checker, signing);
      const service = checker.view.service.id;
      const subs = signing?.service === service ? o.userDataSubscriptions?.connection(token?.name ?? '', endingMethods(checker.view)) : undefined;
      const inspect = signingInspect(checker, check, signing, token, bridged && { methods: bridged, bridge: o.userData }, subs);
      return subs ? { inspect, observeDown: (data) => subs.received(data), opened: () => () => subs.end() } : { inspect };
    },
    streamsOpened(names, templates) {
      if (!keeper) return undefined;
      const keys = names.filter((_, i) => templates[i] === keeper.template);
      // Each listen key held costs keep-alives and a close upstream: bounded per connection, whatever the client names.
      const max = o.maxListenKeys ?? 10;
      if (keys.length > max) throw new GatewayError('invalid', `A stream connection may carry at most ${max} listen keys (GATEWAY_USER_DATA_KEYS_PER_TOKEN); it names ${keys.length}.`);
      return keys.length ? () => keeper.hold(keys) : undefined;
    },
  };
}
