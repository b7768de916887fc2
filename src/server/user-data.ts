// [user data] The listen-key bridge of a gateway (gateway/user-data/bridge.ts), made once at start-up in
// signing mode when the signed service's version changes declare it and its upstream has retired
// listen keys; kept across reloads (its listen keys and subscriptions outlive a program).
import { upstreamIndex } from '../catalogue/changes/lookup.js';
import type { ReleaseView } from '../catalogue/resolve.js';
import { resolveServiceAt } from '../catalogue/resolve.js';
import type { GatewayConfig } from '../config.js';
import type { RateLimiting } from '../gateway/rate-limit/setup.js';
import { userDataBridge, type UserDataBridge } from '../gateway/user-data/bridge.js';
import type { WsSigning } from '../gateway/websocket/frame-signing.js';
import { wsApiBase } from '../gateway/websocket/routes.js';
import type { Logger } from '../log.js';
import { upstreamBase } from '../upstream/upstream-base.js';

/** Tests only: a listen key's lifetime, and params sent with every token request (a short validity). */
export interface UserDataTestOptions {
  expiresAfterMs?: number;
  tokenParams?: Record<string, string>;
}

export function userDataFor(cfg: GatewayConfig, views: readonly ReleaseView[], signing: WsSigning | undefined, limits: RateLimiting, logger: Logger, test: UserDataTestOptions = {}): UserDataBridge | undefined {
  if (!signing) return undefined;
  const service = views.find((v) => v.service.id === signing.service)?.service;
  const base = service && upstreamBase(service, 'wsApi', cfg.upstreams);
  if (!service?.versioned || !base || !service.wsApiPath) return undefined;
  const setting = cfg.upstreamRelease?.[service.id];
  const upstream = resolveServiceAt(service, upstreamIndex(service, setting));
  const u = new URL(wsApiBase(base, service.wsApiPath));
  const wsApiUrl = `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}${service.wsApiPath}${u.search}`;
  return userDataBridge({
    service, upstreamRelease: setting, signing, wsApiUrl, restBase: upstreamBase(service, 'rest', cfg.upstreams), logger, timeoutMs: cfg.timeoutMs, ...test,
    settings: { keysPerToken: cfg.userDataKeysPerToken, streamsPerToken: cfg.userDataStreamsPerToken, keys: cfg.userDataKeys, lingerMs: cfg.userDataLingerMs, maxBufferedBytes: cfg.wsMaxBuffered },
    charge: (id, name, params) => {
      const method = upstream.wsMethods.find((m) => m.name === name);
      return method ? limits.chargeFrame(id, method, params)?.message : undefined;
    },
  });
}
