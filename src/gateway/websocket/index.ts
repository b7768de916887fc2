// Websocket upgrades of the pinned release: route → check stream names / lifecycle → connect the
// upstream → accept the client → relay, with every client frame checked on the way up.
// The upstream is connected *before* the client is accepted, so an unreachable upstream is an
// honest HTTP 502 rather than an accepted socket that closes at once. Refusals are HTTP answers
// written on the socket in the service's error envelope, with X-Gateway-Release. Every upgrade,
// accepted (101) or not, carries X-Request-Id and gets one access line, like any request.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import WebSocket, { WebSocketServer } from 'ws';
import type { Service, WsMethod } from '../../catalogue/model.js';
import type { ReleaseView } from '../../catalogue/resolve.js';
import { lifecycleFacts } from '../../catalogue/lifecycle.js';
import type { Ajv } from 'ajv';
import { createParamAjv } from '../../catalogue/validators.js';
import type { Logger } from '../../log.js';
import { connectUpstream, Relay, UpstreamConnectError, type Inspect } from '../../upstream/ws-relay.js';
import { upstreamBase } from '../../upstream/upstream-base.js';
import { CLIENT_CLOSED, CONNECTION_CUT, recordRaw, refusedLabel } from '../access-record.js';
import { envelope, GatewayError } from '../errors.js';
import { goneChecker, type OpenSubject } from './after-reload.js';
import type { Metrics } from '../metrics.js';
import { writeLastAnswer } from '../raw-answer.js';
import { assignIdentity, identityOf, type RequestIdentity } from '../request-id.js';
import { checkStreamFrame, WsApiChecker, type ApiRequestFacts, type FrameCharge } from './frames.js';
import { requestTarget, routeOf, upstreamUrl, wsApiBase, type WsPaths, type WsRoute } from './routes.js';
import { StreamMatcher } from './stream-names.js';
import { frameMigrations, refusingGoneStreams, type DownInspect } from './migrate-frames.js';
import { websocketSecurity, type WsSecurity } from './security.js';
import type { CrossSiteGuard } from '../cross-site.js';

export { StreamMatcher } from './stream-names.js';

export const DEFAULT_MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** Bytes a client may send before its 101 (it should send none) while the upstream connects. */
const EARLY_DATA_LIMIT = 64 * 1024;

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
  /** [wssign] Keep-alive interval of user-data streams in signing mode (default 30 minutes, the exchange's). */
  userDataKeepAliveMs?: number;
  /** [version changes] The release each service's upstream speaks (the program's migrations; absent: nothing migrates). */
  upstreamRelease?: ReadonlyMap<string, string>;
}

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
  /** Refuse new upgrades, close every connection (terminating laggards), resolve when all are gone. */
  close(): Promise<void>;
}

/** An upgrade the catalogue admits: its service, upstream base and frame check. */
interface Admitted {
  svc: ServiceWs;
  base: string;
  inspect: Inspect;
  /** [version changes] Answers migrated down, on a websocket-API connection at an older release. */
  inspectDown?: DownInspect;
  /** What the connection relays, kept up to date by its SUBSCRIBE / UNSUBSCRIBE frames. */
  subject: OpenSubject;
  /** [wssign] Called once the connection is open; returns what to call when it ends. */
  opened?: () => () => void;
}

/**
 * Stream names remembered per connection for the check after a reload: a bound on memory (a client
 * may subscribe without end), not the upstream's own limit. Names past it are not checked.
 */
const MAX_TRACKED_NAMES = 1024;

/** One upgrade request from arrival to its 101 or refusal: what its access line needs. */
interface Attempt {
  req: IncomingMessage;
  who: RequestIdentity;
  route?: WsRoute;
  /** Stream routes: the catalogue templates the names matched. */
  templates?: string[];
  release?: string;
  upstreamMs?: number;
  recorded: boolean;
}

/** Per-service state: its matcher and websocket-API checker, built once. */
interface ServiceWs {
  view: ReleaseView;
  release?: string;
  streams?: { base: string; matcher: StreamMatcher };
  wsApi?: { base: string; checker: WsApiChecker };
}

export function createWebsocketGateway(opts: WebsocketOptions): WebsocketGateway {
  const maxBuffered = opts.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
  const graceMs = opts.shutdownGraceMs ?? 1000;
  const { logger } = opts;
  // Websocket parameters are JSON values; coercion keeps the check as lenient on scalar types as the
  // REST path is on query text (the forwarded frame is the client's bytes either way).
  const ajv = createParamAjv();
  const services = opts.views.map((view) => serviceWs(view, opts.upstreams, ajv, opts.strict));
  // [version changes] per service: its plans from this release up to the upstream's (null: none)
  const migrations = new Map(services.map((s) => [s, frameMigrations(s.view, { upstreamRelease: opts.upstreamRelease, signing: opts.security?.signing, ajv, strict: opts.strict, logger })]));
  for (const s of services) if (s.streams) s.streams.matcher = refusingGoneStreams(s.streams.matcher, migrations.get(s)!);
  const streamsService = services.find((s) => s.view.service.streams.length > 0);
  const wsApiService = services.find((s) => s.view.service.wsMethods.length > 0);
  // The routes are the upstream's paths, as the catalogue records them.
  const paths: WsPaths = { ...streamsService?.view.service.streamPaths, wsApi: wsApiService?.view.service.wsApiPath };
  const versioned = opts.views.filter((v) => v.release);
  const defaultRelease = versioned.length === 1 ? versioned[0].release!.id : undefined;
  const guard = websocketSecurity(opts); // [wssign] undefined unless signing or tokens are configured

  const wss = new WebSocketServer({
    noServer: true, perMessageDeflate: false, autoPong: false, maxPayload: opts.maxPayload ?? 1024 * 1024, clientTracking: false,
    handleProtocols: (_protocols, req) => pendingUpstream.get(req)?.protocol || false,
  });
  wss.on('headers', (headers, req) => {
    const release = releaseOf.get(req);
    if (release) headers.push(`X-Gateway-Release: ${release}`);
    const who = identityOf(req);
    if (who) headers.push(`X-Request-Id: ${who.id}`);
  });
  wss.on('error', () => {});
  const pendingUpstream = new WeakMap<IncomingMessage, WebSocket>();
  const releaseOf = new WeakMap<IncomingMessage, string | undefined>();
  const connecting = new Set<{ socket: Duplex; upstream: WebSocket }>();
  const relays = new Map<Relay, OpenSubject>();
  const counts = { accepted: 0, refused: 0, slowClients: 0, reloadClosed: 0 };
  let closing = false;

  /** The start of an upgrade's record; the socket closing before an answer records it as the client's hang-up. */
  function attempt(req: IncomingMessage, socket: Duplex): Attempt {
    const at: Attempt = { req, who: identityOf(req) ?? assignIdentity(req, performance.now()), recorded: false };
    socket.once('close', () => record(at, CLIENT_CLOSED));
    return at;
  }

  /** The access line of an upgrade, once: route template, status, release, time to the answer. */
  function record(at: Attempt, status: number, bytes?: number): void {
    if (at.recorded) return;
    at.recorded = true;
    const { route, templates } = at;
    const streams = route?.kind === 'streams' && templates?.length ? [...new Set(templates)].join(',') : undefined;
    recordRaw({ logger, metrics: opts.metrics }, at.who, {
      method: at.req.method, route: accessRoute(route, templates, status, paths), status, release: at.release, arrived: at.who.arrived,
      upstreamMs: at.upstreamMs, bytes, streams,
    });
  }

  function refuse(at: Attempt, socket: Duplex, status: number, body: Record<string, unknown>, release: string | undefined, own: Record<string, string> = {}): void {
    counts.refused++;
    at.release = release;
    if (socket.destroyed) return record(at, CLIENT_CLOSED);
    const headers = ['Content-Type: application/json', `X-Request-Id: ${at.who.id}`, ...(release ? [`X-Gateway-Release: ${release}`] : []), ...Object.entries(own).map(([k, v]) => `${k}: ${v}`)];
    record(at, status, writeLastAnswer(socket, status, headers, JSON.stringify(body)));
  }

  function refuseError(at: Attempt, socket: Duplex, e: GatewayError, svc: ServiceWs | undefined): void {
    const service: Service | undefined = svc?.view.service ?? opts.views[0]?.service;
    refuse(at, socket, e.status, envelope(service, e.reason, e.message), svc?.release ?? defaultRelease, e.headers); // [wssign] e.headers: WWW-Authenticate on a 401
  }

  /** The service and checks of a route, or the GatewayError refusing it. */
  function admit(route: WsRoute, at: Attempt): Admitted {
    if (route.kind === 'streams') {
      const svc = streamsService;
      if (!svc?.streams) throw new GatewayError('notFound', `No websocket streams${svc ? ' upstream' : ''} in this gateway's catalogue.`);
      const { matcher } = svc.streams;
      const templates: string[] = [];
      for (const name of route.names) {
        const c = matcher.check(name);
        if (!c.ok) throw new GatewayError(c.gone ? 'gone' : 'invalid', c.reason);
        templates.push(c.stream.name);
        if (svc.view.status(c.stream) === 'deprecated') {
          logger.info(`ws stream ${c.stream.name}${svc.release ? ` at ${svc.release}` : ''}: ${lifecycleFacts(c.stream, svc.view.service.releases, svc.view.at)} (served)`);
        }
      }
      at.templates = templates;
      const names = new Set(route.names.slice(0, MAX_TRACKED_NAMES));
      const subject: OpenSubject = { kind: 'streams', service: svc.view.service.id, release: svc.release, names };
      const track = (method: 'SUBSCRIBE' | 'UNSUBSCRIBE', list: string[]) => {
        for (const n of list) {
          if (method === 'UNSUBSCRIBE') names.delete(n);
          else if (names.size < MAX_TRACKED_NAMES) names.add(n);
        }
      };
      return { svc, base: svc.streams.base, inspect: (data) => checkStreamFrame(matcher, data, track), subject };
    }
    const svc = wsApiService;
    if (!svc?.wsApi) throw new GatewayError('notFound', 'No websocket API upstream in this gateway\'s catalogue.');
    const { view } = svc;
    if (!view.wsMethods.length) {
      const first = [...view.service.wsMethods].sort((a, b) => a.span.added - b.span.added)[0];
      throw new GatewayError('notFound', `The websocket API ${route.path} was ${lifecycleFacts(first, view.service.releases, view.at)}.`);
    }
    const { checker } = svc.wsApi;
    const warned = new Set<string>();
    const served = ({ method, deprecated }: ApiRequestFacts) => {
      if (deprecated && !warned.has(method.name)) {
        warned.add(method.name); // once per connection
        logger.info(`ws-api ${checker.facts(method)} (served)`);
      }
    };
    const limits = opts.frameLimits;
    const authorization = typeof at.req.headers.authorization === 'string' ? at.req.headers.authorization : undefined;
    const charge: FrameCharge | undefined = limits && ((method, params) => limits.chargeFrame(view.service.id, method, params, authorization));
    const migrated = migrations.get(svc)?.wsApi(checker, served, charge); // [version changes]
    const inspect: Inspect = migrated?.up ?? ((data) => checker.check(data, served, charge));
    return { svc, base: svc.wsApi.base, inspect, inspectDown: migrated?.down, subject: { kind: 'wsApi', service: view.service.id, release: svc.release, names: new Set() } };
  }

  /**
   * The 'upgrade' listener: the connection boundary. Nothing a client sends may end the process, so
   * every error is answered here: a GatewayError as itself, a request that ws or URL building reject
   * as 400, anything else (a gateway bug) as 500 with its stack in the log.
   */
  function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    // A client hanging up is not the gateway's error; 'close' does the clean-up.
    socket.on('error', (e: NodeJS.ErrnoException) => logger.debug(`ws upgrade: client socket ${e.code ?? e.message}`));
    const at = attempt(req, socket);
    try {
      if (closing) throw new GatewayError('upstream', 'Gateway shutting down.');
      const token = guard?.admitUpgrade(req); // [wssign] 401 / cross-site before routing; strips ?token=
      const target = requestTarget(req.url ?? '/');
      at.route = routeOf(target, paths);
      const admitted = admit(at.route, at);
      if (guard) secure(admitted, at, token); // [wssign]
      const protocols = checkHandshake(req);
      dial(at, socket, head, at.route, admitted, protocols);
    } catch (e) {
      refuseThrown(at, socket, e);
    }
  }

  /** [wssign] Signing mode / tokens on an admitted connection: per-frame token check and signing, user-data keep-alive. */
  function secure(admitted: Admitted, at: Attempt, token: ReturnType<NonNullable<typeof guard>['admitUpgrade']>): void {
    const { route } = at;
    if (route?.kind === 'wsApi') admitted.inspect = guard!.wsApiInspect(admitted.svc.wsApi!.checker, admitted.inspect, token);
    else if (route?.kind === 'streams') admitted.opened = guard!.streamsOpened(route.names, at.templates ?? []);
  }

  function refuseThrown(at: Attempt, socket: Duplex, e: unknown): void {
    const { route } = at;
    const svc = route?.kind === 'wsApi' ? wsApiService : streamsService ?? wsApiService;
    const path = (at.req.url ?? '').split(/[?#]/)[0];
    const where = route ? describe(route, paths) : paths.raw && path.startsWith(`${paths.raw}/`) ? `${paths.raw}/…` : path;
    if (e instanceof GatewayError) {
      logger.debug(`ws upgrade ${where} refused: ${e.status}`);
      return refuseError(at, socket, e, svc);
    }
    logger.error(`ws upgrade ${where} → 500: ${(e as Error)?.stack ?? String(e)}`);
    refuseError(at, socket, new GatewayError('unknown', 'internal gateway error'), svc);
  }

  /** Connect the upstream, then accept the client and relay. */
  function dial(at: Attempt, socket: Duplex, head: Buffer, route: WsRoute, admitted: Admitted, protocols: string[]): void {
    const { req, who } = at;
    const { svc, base, inspect, subject } = admitted;
    const label = describe(route, paths);
    let conn: ReturnType<typeof connectUpstream>;
    const dialled = performance.now();
    try {
      const headers = { 'x-request-id': who.id, traceparent: who.traceparent };
      conn = connectUpstream(upstreamUrl(route, base, paths), { timeoutMs: opts.timeoutMs, protocols, headers });
    } catch (e) {
      // ws checks the URL and subprotocols synchronously; both come from the client's request.
      throw new GatewayError('invalid', `Invalid websocket request: ${(e as Error).message}.`);
    }
    releaseOf.set(req, svc.release);
    at.release = svc.release;
    const { socket: upstream, opened } = conn;
    const entry = { socket, upstream };
    connecting.add(entry);
    // The client gave up while the upstream was connecting: drop the upstream.
    let clientGone = false, upgraded = false;
    const onGone = () => { clientGone = true; upstream.terminate(); };
    socket.once('close', onGone);
    // Read the client meanwhile: a socket nobody reads never reports that its peer has gone. It should
    // send nothing before the 101 (RFC 6455 §4.1); what an eager client sends is kept for ws, bounded.
    const early: Buffer[] = [];
    let earlyBytes = 0;
    const onEarly = (d: Buffer) => {
      earlyBytes += d.length;
      if (earlyBytes > EARLY_DATA_LIMIT) {
        record(at, CONNECTION_CUT);
        socket.destroy();
      } else early.push(d);
    };
    const onEnd = () => socket.destroy(); // no websocket client half-closes before its handshake
    socket.on('data', onEarly);
    socket.once('end', onEnd);
    const accept = () => {
      at.upstreamMs = performance.now() - dialled;
      connecting.delete(entry);
      socket.off('close', onGone);
      // handleUpgrade below adds ws's own 'data' listener in this same tick: no chunk falls between.
      socket.off('data', onEarly);
      socket.off('end', onEnd);
      if (socket.destroyed || closing) {
        upstream.terminate();
        if (closing) {
          record(at, CONNECTION_CUT);
          socket.destroy();
        }
        return;
      }
      pendingUpstream.set(req, upstream);
      // If the handshake is bad after all, ws answers it and the callback never runs: drop the upstream then.
      const onAbort = () => upstream.terminate();
      socket.once('close', onAbort);
      wss.handleUpgrade(req, socket, early.length ? Buffer.concat([head, ...early]) : head, (client) => {
        upgraded = true;
        socket.off('close', onAbort);
        pendingUpstream.delete(req);
        counts.accepted++;
        record(at, 101, (socket as Socket).bytesWritten);
        const started = Date.now();
        const leave = admitted.opened?.(); // [wssign]
        logger.debug(`ws ${label} open`);
        const relay = new Relay(client, upstream, {
          maxBufferedBytes: maxBuffered, maxHoldMs: opts.maxHoldMs, inspect, inspectDown: admitted.inspectDown,
          onSlowClient: () => {
            counts.slowClients++;
            logger.warn(`ws ${label}: client too slow (more than ${maxBuffered} bytes waiting), closed with 1008`);
          },
          onEnd: (end) => {
            leave?.(); // [wssign]
            relays.delete(relay);
            logger.debug(`ws ${label} closed: client ${end.clientCode}, upstream ${end.upstreamCode}, ${end.framesUp} frames up, ${end.framesDown} down, ${Date.now() - started} ms`);
          },
        });
        relays.set(relay, subject);
      });
    };
    const refused = (e: UpstreamConnectError) => {
      connecting.delete(entry);
      socket.off('close', onGone);
      if (clientGone) {
        counts.refused++;
        return logger.debug(`ws ${label}: client hung up before the upstream answered`);
      }
      const status = e.status !== undefined && e.status >= 400 && e.status < 500 ? e.status : 502;
      logger.warn(`ws ${label} → ${status}: ${e.message}`);
      refuseError(at, socket, new GatewayError('upstream', `Upstream websocket refused or unreachable: ${e.message}.`, {}, status), svc);
    };
    // Same boundary as upgrade(): an error in accepting or relaying must not become an unhandled rejection.
    opened.then(accept, refused).catch((e: unknown) => {
      upstream.terminate();
      if (!upgraded) return refuseThrown(at, socket, e);
      socket.destroy(); // the 101 is sent: no HTTP answer can follow it
      logger.error(`ws ${label}: ${(e as Error)?.stack ?? String(e)}`);
    });
  }

  return {
    upgrade,
    refuse: (req, socket, e) => {
      const at = attempt(req, socket);
      try {
        at.route = routeOf(requestTarget(req.url ?? '/'), paths);
      } catch {
        /* a target that does not route: recorded as refused:<status> */
      }
      refuseError(at, socket, e, undefined);
    },
    stats: () => ({ open: relays.size, connecting: connecting.size, ...counts }),
    afterReload(next, close) {
      const out = { gone: 0, closed: 0 };
      if (!relays.size) return out;
      const gone = goneChecker(next);
      for (const [relay, subject] of relays) {
        const reason = gone(subject);
        if (reason === undefined) continue;
        out.gone++;
        if (close && relay.closeGone(reason)) out.closed++;
      }
      counts.reloadClosed += out.closed;
      return out;
    },
    async close() {
      closing = true;
      for (const c of connecting) {
        c.upstream.terminate();
        c.socket.destroy();
      }
      connecting.clear();
      await Promise.all([...relays.keys()].map((r) => r.shutdown(graceMs)));
      wss.close();
    },
  };
}

function serviceWs(view: ReleaseView, overrides: Record<string, string>, ajv: Ajv, strict: boolean): ServiceWs {
  const s = view.service;
  const out: ServiceWs = { view, release: view.release?.id };
  const streamsBase = upstreamBase(s, 'streams', overrides);
  if (streamsBase && s.streams.length) out.streams = { base: streamsBase, matcher: new StreamMatcher(view) };
  const apiBase = upstreamBase(s, 'wsApi', overrides);
  if (apiBase && s.wsMethods.length) out.wsApi = { base: wsApiBase(apiBase, s.wsApiPath!), checker: new WsApiChecker(view, ajv, strict) };
  return out;
}

/**
 * The route of an upgrade's access line and histogram: a bounded template, never the client's path
 * (a user-data stream's name is its listen key). One raw stream: its catalogue template under the
 * raw path; several, or a combined stream: the path alone (the access line lists the templates).
 */
function accessRoute(route: WsRoute | undefined, templates: string[] | undefined, status: number, paths: WsPaths): string {
  if (!route) return refusedLabel(status);
  if (route.kind === 'wsApi') return paths.wsApi!;
  if (route.combined) return paths.combined!;
  return templates?.length === 1 ? `${paths.raw}/${templates[0]}` : paths.raw!;
}

/** A route for log lines: no query strings, no stream names (a user-data stream's name is its listen key). */
function describe(route: WsRoute, paths: WsPaths): string {
  if (route.kind === 'wsApi') return route.path;
  return `${route.combined ? paths.combined : paths.raw} (${route.names.length} stream${route.names.length === 1 ? '' : 's'})`;
}

/**
 * The parts of a websocket handshake ws checks too, checked before an upstream connection is spent
 * on it (and so that a bad one is answered in the service's envelope). Returns the subprotocols the
 * client offers, which the upstream connection offers in turn: ws's client throws on a duplicated
 * or malformed one.
 */
function checkHandshake(req: IncomingMessage): string[] {
  const key = req.headers['sec-websocket-key'];
  if (req.method !== 'GET' || String(req.headers.upgrade ?? '').toLowerCase() !== 'websocket'
    || typeof key !== 'string' || !/^[+/0-9A-Za-z]{22}==$/.test(key)) {
    throw new GatewayError('invalid', 'Invalid websocket handshake (expected GET with Upgrade: websocket and a Sec-WebSocket-Key).');
  }
  const version = req.headers['sec-websocket-version'];
  if (version !== '13' && version !== '8') {
    throw new GatewayError('invalid', `Unsupported Sec-WebSocket-Version '${String(version ?? '').slice(0, 32)}'; expected 13.`);
  }
  const header = req.headers['sec-websocket-protocol'];
  if (header === undefined) return [];
  const protocols = header.split(',').map((p) => p.replace(/^[ \t]+|[ \t]+$/g, ''));
  for (const [i, p] of protocols.entries()) {
    if (!TOKEN.test(p)) {
      throw new GatewayError('invalid', `Invalid Sec-WebSocket-Protocol: '${p.slice(0, 64)}' is not a token (letters, digits and !#$%&'*+-.^_\`|~; no '/', no empty entry).`);
    }
    if (protocols.indexOf(p) !== i) throw new GatewayError('invalid', `Invalid Sec-WebSocket-Protocol: '${p.slice(0, 64)}' is offered twice.`);
  }
  return protocols;
}

/** An HTTP token (RFC 9110 §5.6.2), what a subprotocol name must be (RFC 6455 §4.1). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
