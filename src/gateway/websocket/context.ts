// The state one websocket gateway's upgrades share, built once per served program: the services
// with their stream matcher and websocket-API checker, the upstream paths, the ws server that
// accepts clients, and the connections connecting and open.
import { RELEASE_HEADER_NAME } from '../profile.js';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Ajv } from 'ajv';
import WebSocket, { WebSocketServer } from 'ws';
import type { ReleaseView } from '../../catalogue/resolve.js';
import { processAjv } from '../../catalogue/validators.js';
import type { Relay } from '../../upstream/ws-relay.js';
import { upstreamBase } from '../../upstream/upstream-base.js';
import { identityOf } from '../observe/request-id.js';
import type { OpenSubject } from './after-reload.js';
import { DEFAULT_MAX_BUFFERED_BYTES, type WebsocketOptions, type WebsocketStats } from './contract.js';
import { WsApiChecker } from './frames.js';
import { wsApiBase, type WsPaths } from './routes.js';
import { websocketSecurity, type WsGuard } from './security.js';
import { frameMigrations, refusingGoneStreams, type FrameMigrations } from './migrate-frames.js';
import { StreamMatcher, type StreamCheck } from './stream-names.js';

/** Per-service state: its matcher and websocket-API checker, built once. */
export interface ServiceWs {
  view: ReleaseView;
  release?: string;
  streams?: { base: string; matcher: StreamMatcher };
  wsApi?: { base: string; checker: WsApiChecker };
  /** [version changes] Its plans from this release up to the upstream's (null: nothing changes). */
  migrations: FrameMigrations | null;
}

export interface WsContext {
  opts: WebsocketOptions;
  streamsService?: ServiceWs;
  wsApiService?: ServiceWs;
  /** The routes: the upstream's paths, as the catalogue records them. */
  paths: WsPaths;
  /** The release named on refusals no service claims (when one release is served). */
  defaultRelease?: string;
  /** [wssign] undefined unless signing or tokens are configured. */
  guard?: WsGuard;
  maxBuffered: number;
  wss: WebSocketServer;
  /** The upstream connected for an upgrade ws is accepting (its subprotocol is the client's). */
  pendingUpstream: WeakMap<IncomingMessage, WebSocket>;
  releaseOf: WeakMap<IncomingMessage, string | undefined>;
  connecting: Set<{ socket: Duplex; upstream: WebSocket }>;
  relays: Map<Relay, OpenSubject>;
  counts: Omit<WebsocketStats, 'open' | 'connecting'>;
  /** close() was called: new upgrades are refused. */
  closing: boolean;
}

export function wsContext(opts: WebsocketOptions): WsContext {
  // Websocket parameters are JSON values; coercion keeps the check as lenient on scalar types as the
  // REST path is on query text (the forwarded frame is the client's bytes either way).
  const ajv = processAjv.param;
  const services = opts.views.map((view) => serviceWs(view, opts, ajv));
  const streamsService = services.find((s) => s.view.service.streams.length > 0);
  const wsApiService = services.find((s) => s.view.service.wsMethods.length > 0);
  const versioned = opts.views.filter((v) => v.release);
  const pendingUpstream = new WeakMap<IncomingMessage, WebSocket>();
  const releaseOf = new WeakMap<IncomingMessage, string | undefined>();
  return {
    opts, streamsService, wsApiService,
    paths: { ...streamsService?.view.service.streamPaths, wsApi: wsApiService?.view.service.wsApiPath },
    defaultRelease: versioned.length === 1 ? versioned[0].release!.id : undefined,
    guard: websocketSecurity(opts),
    maxBuffered: opts.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES,
    wss: clientServer(opts, pendingUpstream, releaseOf),
    pendingUpstream, releaseOf,
    connecting: new Set(),
    relays: new Map(),
    counts: { accepted: 0, refused: 0, slowClients: 0, reloadClosed: 0 },
    closing: false,
  };
}

/** ws's server for the client side: no compression, the upstream's subprotocol, the gateway's headers on the 101. */
function clientServer(opts: WebsocketOptions, pendingUpstream: WsContext['pendingUpstream'], releaseOf: WsContext['releaseOf']): WebSocketServer {
  const wss = new WebSocketServer({
    noServer: true, perMessageDeflate: false, autoPong: false, maxPayload: opts.maxPayload ?? 1024 * 1024, clientTracking: false,
    handleProtocols: (_protocols, req) => pendingUpstream.get(req)?.protocol || false,
  });
  wss.on('headers', (headers, req) => {
    const release = releaseOf.get(req);
    if (release) headers.push(`${RELEASE_HEADER_NAME}: ${release}`);
    const who = identityOf(req);
    if (who) headers.push(`X-Request-Id: ${who.id}`);
  });
  wss.on('error', () => {});
  return wss;
}

function serviceWs(view: ReleaseView, opts: WebsocketOptions, ajv: Ajv): ServiceWs {
  const s = view.service;
  const { upstreams: overrides, strict } = opts;
  const migrations = frameMigrations(view, { upstreamRelease: opts.upstreamRelease, signing: opts.security?.signing, ajv, strict, logger: opts.logger });
  const out: ServiceWs = { view, release: view.release?.id, migrations };
  const streamsBase = upstreamBase(s, 'streams', overrides);
  if (streamsBase && s.streams.length) out.streams = { base: streamsBase, matcher: countingUnknown(refusingGoneStreams(new StreamMatcher(view), migrations), opts.drift) };
  const apiBase = upstreamBase(s, 'wsApi', overrides);
  if (apiBase && s.wsMethods.length) {
    const checker = new WsApiChecker(view, ajv, strict);
    const { drift } = opts;
    if (drift) checker.unknown = (name) => drift.unknownOperation('ws-api', '', name, s.id);
    out.wsApi = { base: wsApiBase(apiBase, s.wsApiPath!), checker };
  }
  return out;
}

/** A stream matcher that also counts the names matching no template of the catalogue (drift). */
function countingUnknown(matcher: StreamMatcher, drift: WebsocketOptions['drift']): StreamMatcher {
  if (!drift) return matcher;
  const check = matcher.check.bind(matcher);
  const service = matcher.view.service.id;
  return Object.assign(Object.create(matcher) as StreamMatcher, {
    check(name: string): StreamCheck {
      const c = check(name);
      if (!c.ok && c.unknown) drift.unknownOperation('stream', '', name, service);
      return c;
    },
  });
}
