// [user data] The listen-key bridge of a gateway (gateway/user-data/bridge.ts), made at start-up in
// signing mode when the signed service's version changes declare it and its upstream has retired
// listen keys, and redefined by each reload (its listen keys and subscription outlive a program;
// a reload that moves --upstream-release past the retirement makes it, one that moves back ends it).
// Its store lives here, or under --workers in the primary (cluster-user-data.ts), shared by all.
import cluster from 'node:cluster';
import { upstreamIndex } from '../catalogue/changes/lookup.js';
import type { ReleaseView } from '../catalogue/resolve.js';
import { resolveServiceAt } from '../catalogue/resolve.js';
import type { GatewayConfig } from '../config.js';
import { remoteStore } from '../cluster-user-data.js';
import type { RateLimiting } from '../gateway/rate-limit/setup.js';
import { bridgeDefinition, signedSubscribeParams, UserDataBridge } from '../gateway/user-data/bridge.js';
import { RedisStore } from '../gateway/user-data/redis-store.js';
import { InProcessStore, LocalStore, type StoreDefinition } from '../gateway/user-data/store.js';
import type { WsSigning } from '../gateway/websocket/frame-signing.js';
import { wsApiBase } from '../gateway/websocket/routes.js';
import type { Logger } from '../log.js';
import { upstreamBase } from '../upstream/upstream-base.js';

/** Tests only: a listen key's lifetime, params sent with every token request (a short validity), how often a fleet replica looks for ended keys. */
export interface UserDataTestOptions {
  expiresAfterMs?: number;
  tokenParams?: Record<string, string>;
  pollMs?: number;
}

/** What the bridge is for this configuration and catalogue, or undefined when there is none to run. */
export function userDataDefinition(cfg: GatewayConfig, views: readonly ReleaseView[], signing: WsSigning | undefined, test: UserDataTestOptions = {}): StoreDefinition | undefined {
  if (!signing) return undefined;
  const service = views.find((v) => v.service.id === signing.service)?.service;
  const base = service && upstreamBase(service, 'wsApi', cfg.upstreams);
  if (!service?.versioned || !base || !service.wsApiPath) return undefined;
  const u = new URL(wsApiBase(base, service.wsApiPath));
  const wsApiUrl = `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}${service.wsApiPath}${u.search}`;
  return bridgeDefinition({
    service, upstreamRelease: cfg.upstreamRelease?.[service.id], wsApiUrl, restBase: upstreamBase(service, 'rest', cfg.upstreams), timeoutMs: cfg.timeoutMs, ...test,
    settings: { keysPerToken: cfg.userDataKeysPerToken, streamsPerToken: cfg.userDataStreamsPerToken, keys: cfg.userDataKeys, lingerMs: cfg.userDataLingerMs, maxBufferedBytes: cfg.wsMaxBuffered },
  });
}

/** The rate limiter's charge of one websocket-API frame of the signed service (a refusal message, or undefined). */
function chargeOf(cfg: GatewayConfig, views: readonly ReleaseView[], signing: WsSigning, limits: RateLimiting) {
  const service = views.find((v) => v.service.id === signing.service)!.service;
  const upstream = resolveServiceAt(service, upstreamIndex(service, cfg.upstreamRelease?.[service.id]));
  return (name: string, params: Readonly<Record<string, unknown>>) => {
    const method = upstream.wsMethods.find((m) => m.name === name);
    return method ? limits.chargeFrame(service.id, method, params)?.message : undefined;
  };
}

/** The process's bridge across reloads: made, redefined or ended by each configuration and catalogue applied. */
export interface UserDataSide {
  readonly bridge: UserDataBridge | undefined;
  /** Apply a configuration, catalogue and signing (start-up, then each reload). */
  apply(cfg: GatewayConfig, views: readonly ReleaseView[], signing: WsSigning | undefined): void;
  close(): void;
}

/**
 * The bridge's store lives in Redis when the fleet is on (shared by every replica and worker), else in
 * the primary under --workers (whose key is the one it started with), else in this process.
 * `pollMs`: how often a fleet replica looks for keys ended elsewhere (tests shorten it).
 */
export function userDataSide(limits: RateLimiting, logger: Logger, test: UserDataTestOptions = {}): UserDataSide {
  let bridge: UserDataBridge | undefined;
  let signing: WsSigning | undefined;
  let charge: ReturnType<typeof chargeOf> | undefined;
  const parts = { signedParams: () => signedSubscribeParams(signing!)(), get apiKey() { return signing!.apiKey; }, charge: (m: string, p: Readonly<Record<string, unknown>>) => charge?.(m, p), logger };
  return {
    get bridge() { return bridge; },
    apply(cfg, views, nextSigning) {
      const { pollMs, ...defined } = test;
      const def = userDataDefinition(cfg, views, nextSigning, defined);
      if (!def || !nextSigning) {
        // The upstream speaks a release where listen keys are alive again (or signing is off): nothing to bridge.
        bridge?.close();
        bridge = undefined;
        return;
      }
      signing = nextSigning;
      charge = chargeOf(cfg, views, nextSigning, limits);
      if (bridge) return bridge.redefine(def, cfg.wsMaxBuffered);
      const fleet = cfg.fleet !== 'off' ? cfg.fleet : undefined;
      bridge = new UserDataBridge(def, cfg.wsMaxBuffered, logger, (listener) => fleet
        ? new RedisStore(def, parts, fleet, { ...listener, watching: listener.watching! }, pollMs)
        : cluster.isWorker ? remoteStore(listener, logger) : new InProcessStore(new LocalStore(def, parts), listener));
    },
    close: () => bridge?.close(),
  };
}
