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
}

/** What the websocket gateway asks of it on each upgrade (index.ts, admission.ts). */
export interface WsGuard {
  /** Check the upgrade request (401 / 403 as a GatewayError); the client's token entry, if tokens are configured. */
  admitUpgrade(req: IncomingMessage): TokenEntry | undefined;
  /** The inspect of a websocket-API connection: token check per frame, catalogue check, signing; `bridged`: the methods the listen-key bridge answers. */
  wsApiInspect(checker: WsApiChecker, check: Inspect, token: TokenEntry | undefined, bridged?: ReadonlyMap<string, string>): AwaitingInspect;
  /**
   * For a stream connection: what to call once it is open (keeps its user-data streams alive) and
   * which returns what to call when it ends; undefined when it carries none.
   */
  streamsOpened(names: readonly string[], templates: readonly string[]): (() => () => void) | undefined;
}

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
    wsApiInspect(checker, check, token, bridged) {
      supplyParams(checker, signing);
      return signingInspect(checker, check, signing, token, bridged && { methods: bridged, bridge: o.userData });
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
