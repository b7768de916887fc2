// Websocket upgrades of the pinned release: route → check stream names / lifecycle → connect the
// upstream → accept the client → relay, with every client frame checked on the way up.
// The upstream is connected *before* the client is accepted, so an unreachable upstream is an
// honest HTTP 502 rather than an accepted socket that closes at once. Refusals are HTTP answers
// written on the socket in the service's error envelope, with X-Gateway-Release.
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import WebSocket, { WebSocketServer } from 'ws';
import type { Service } from '../../catalogue/model.js';
import type { ReleaseView } from '../../catalogue/resolve.js';
import { lifecycleFacts } from '../../catalogue/lifecycle.js';
import type { Ajv } from 'ajv';
import { createParamAjv } from '../../catalogue/validators.js';
import type { Logger } from '../../log.js';
import { connectUpstream, Relay, UpstreamConnectError, type Inspect } from '../../upstream/ws-relay.js';
import { upstreamBase } from '../../upstream/upstream-base.js';
import { envelope, GatewayError } from '../errors.js';
import { checkStreamFrame, WsApiChecker } from './frames.js';
import { routeOf, upstreamUrl, type WsRoute } from './routes.js';
import { StreamMatcher } from './stream-names.js';

export { StreamMatcher } from './stream-names.js';

export const DEFAULT_MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

export interface WebsocketOptions {
  views: ReleaseView[];
  /** Upstream overrides as in GatewayConfig.upstreams: "<service>.streams" / "<service>.wsApi" → URL. */
  upstreams: Record<string, string>;
  strict: boolean;
  /** Upstream handshake timeout. */
  timeoutMs: number;
  logger: Logger;
  /** Largest client message (default 1 MiB). */
  maxPayload?: number;
  /** Bytes allowed to wait for a slow client before it is closed with 1008 (default 4 MiB). */
  maxBufferedBytes?: number;
  /** How long shutdown waits for closing handshakes before terminating (default 1 s). */
  shutdownGraceMs?: number;
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
}

export interface WebsocketGateway {
  /** Listener for the http server's 'upgrade' event. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  stats(): WebsocketStats;
  /** Refuse new upgrades, close every connection (terminating laggards), resolve when all are gone. */
  close(): Promise<void>;
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
  const streamsService = services.find((s) => s.view.service.streams.length > 0);
  const wsApiService = services.find((s) => s.view.service.wsMethods.length > 0);
  const versioned = opts.views.filter((v) => v.release);
  const defaultRelease = versioned.length === 1 ? versioned[0].release!.id : undefined;

  const wss = new WebSocketServer({
    noServer: true, perMessageDeflate: false, autoPong: false, maxPayload: opts.maxPayload ?? 1024 * 1024, clientTracking: false,
    handleProtocols: (_protocols, req) => pendingUpstream.get(req)?.protocol || false,
  });
  wss.on('headers', (headers, req) => {
    const release = releaseOf.get(req);
    if (release) headers.push(`X-Gateway-Release: ${release}`);
  });
  wss.on('error', () => {});
  const pendingUpstream = new WeakMap<IncomingMessage, WebSocket>();
  const releaseOf = new WeakMap<IncomingMessage, string | undefined>();
  const connecting = new Set<{ socket: Duplex; upstream: WebSocket }>();
  const relays = new Set<Relay>();
  const counts = { accepted: 0, refused: 0, slowClients: 0 };
  let closing = false;

  function refuse(socket: Duplex, status: number, body: Record<string, unknown>, release: string | undefined): void {
    counts.refused++;
    if (socket.destroyed) return;
    const text = JSON.stringify(body);
    const head = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`, 'Connection: close', 'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(text)}`, ...(release ? [`X-Gateway-Release: ${release}`] : []),
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${text}`);
    socket.once('finish', () => socket.destroy());
  }

  function refuseError(socket: Duplex, e: GatewayError, svc: ServiceWs | undefined): void {
    const service: Service | undefined = svc?.view.service ?? opts.views[0]?.service;
    refuse(socket, e.status, envelope(service, e.reason, e.message), svc?.release ?? defaultRelease);
  }

  /** The service and checks of a route, or the GatewayError refusing it. */
  function admit(route: WsRoute): { svc: ServiceWs; base: string; inspect: Inspect } {
    if (route.kind === 'streams') {
      const svc = streamsService;
      if (!svc?.streams) throw new GatewayError('notFound', `No websocket streams${svc ? ' upstream' : ''} in this gateway's catalogue.`);
      const { matcher } = svc.streams;
      for (const name of route.names) {
        const c = matcher.check(name);
        if (!c.ok) throw new GatewayError('invalid', c.reason);
        if (svc.view.status(c.stream) === 'deprecated') {
          logger.info(`ws stream ${c.stream.name}${svc.release ? ` at ${svc.release}` : ''}: ${lifecycleFacts(c.stream, svc.view.service.releases, svc.view.at)} (served)`);
        }
      }
      return { svc, base: svc.streams.base, inspect: (data) => checkStreamFrame(matcher, data) };
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
    const inspect: Inspect = (data) => checker.check(data, ({ method, deprecated }) => {
      if (deprecated && !warned.has(method.name)) {
        warned.add(method.name); // once per connection
        logger.info(`ws-api ${checker.facts(method)} (served)`);
      }
    });
    return { svc, base: svc.wsApi.base, inspect };
  }

  function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => {});
    if (closing) return refuse(socket, 503, envelope(opts.views[0]?.service, 'upstream', 'Gateway shutting down.'), defaultRelease);
    let route: WsRoute | undefined, admitted: ReturnType<typeof admit>;
    try {
      route = routeOf(req.url ?? '/');
      admitted = admit(route);
      checkHandshake(req);
    } catch (e) {
      const svc = route?.kind === 'wsApi' ? wsApiService : streamsService ?? wsApiService;
      const where = route ? describe(route) : (req.url ?? '').split('?')[0].replace(/^\/ws\/.*/, '/ws/…');
      if (!(e instanceof GatewayError)) {
        logger.error(`ws upgrade ${where} → 500: ${(e as Error)?.stack ?? String(e)}`);
        return refuseError(socket, new GatewayError('unknown', 'internal gateway error'), svc);
      }
      logger.debug(`ws upgrade ${where} refused: ${e.status}`);
      return refuseError(socket, e, svc);
    }
    const { svc, base, inspect } = admitted;
    const label = describe(route);
    releaseOf.set(req, svc.release);
    const target = upstreamUrl(route, base, req.url ?? '/');
    const protocols = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    const { socket: upstream, opened } = connectUpstream(target, { timeoutMs: opts.timeoutMs, protocols });
    const entry = { socket, upstream };
    connecting.add(entry);
    // The client gave up while the upstream was connecting: drop the upstream.
    const onGone = () => upstream.terminate();
    socket.once('close', onGone);
    opened.then(
      () => {
        connecting.delete(entry);
        socket.off('close', onGone);
        if (socket.destroyed || closing) {
          upstream.terminate();
          if (closing) socket.destroy();
          return;
        }
        pendingUpstream.set(req, upstream);
        // If the handshake is bad after all, ws answers it and the callback never runs: drop the upstream then.
        const onAbort = () => upstream.terminate();
        socket.once('close', onAbort);
        wss.handleUpgrade(req, socket, head, (client) => {
          socket.off('close', onAbort);
          pendingUpstream.delete(req);
          counts.accepted++;
          const started = Date.now();
          logger.debug(`ws ${label} open`);
          const relay = new Relay(client, upstream, {
            maxBufferedBytes: maxBuffered, inspect,
            onSlowClient: () => {
              counts.slowClients++;
              logger.warn(`ws ${label}: client too slow (more than ${maxBuffered} bytes waiting), closed with 1008`);
            },
            onEnd: (end) => {
              relays.delete(relay);
              logger.debug(`ws ${label} closed: client ${end.clientCode}, upstream ${end.upstreamCode}, ${end.framesUp} frames up, ${end.framesDown} down, ${Date.now() - started} ms`);
            },
          });
          relays.add(relay);
        });
      },
      (e: UpstreamConnectError) => {
        connecting.delete(entry);
        socket.off('close', onGone);
        const status = e.status !== undefined && e.status >= 400 && e.status < 500 ? e.status : 502;
        logger.warn(`ws ${label} → ${status}: ${e.message}`);
        refuseError(socket, new GatewayError('upstream', `Upstream websocket refused or unreachable: ${e.message}.`, {}, status), svc);
      },
    );
  }

  return {
    upgrade,
    stats: () => ({ open: relays.size, connecting: connecting.size, ...counts }),
    async close() {
      closing = true;
      for (const c of connecting) {
        c.upstream.terminate();
        c.socket.destroy();
      }
      connecting.clear();
      await Promise.all([...relays].map((r) => r.shutdown(graceMs)));
      wss.close();
    },
  };
}

function serviceWs(view: ReleaseView, overrides: Record<string, string>, ajv: Ajv, strict: boolean): ServiceWs {
  const s = view.service;
  const out: ServiceWs = { view, release: view.release?.id };
  const streamsBase = upstreamBase(s, 'streams', overrides);
  if (streamsBase && s.streams.length) out.streams = { base: streamsBase, matcher: new StreamMatcher(view) };
  const wsApiBase = upstreamBase(s, 'wsApi', overrides);
  if (wsApiBase && s.wsMethods.length) out.wsApi = { base: wsApiBase, checker: new WsApiChecker(view, ajv, strict) };
  return out;
}

/** A route for log lines: no query strings, no stream names (a user-data stream's name is its listen key). */
function describe(route: WsRoute): string {
  if (route.kind === 'wsApi') return route.path;
  return `${route.combined ? '/stream' : '/ws'} (${route.names.length} stream${route.names.length === 1 ? '' : 's'})`;
}

/** The parts of a websocket handshake ws checks too, checked before an upstream connection is spent on it. */
function checkHandshake(req: IncomingMessage): void {
  const key = req.headers['sec-websocket-key'];
  if (req.method !== 'GET' || String(req.headers.upgrade ?? '').toLowerCase() !== 'websocket'
    || typeof key !== 'string' || !/^[+/0-9A-Za-z]{22}==$/.test(key)) {
    throw new GatewayError('invalid', 'Invalid websocket handshake (expected GET with Upgrade: websocket and a Sec-WebSocket-Key).');
  }
  const version = req.headers['sec-websocket-version'];
  if (version !== '13' && version !== '8') {
    throw new GatewayError('invalid', `Unsupported Sec-WebSocket-Version '${version ?? ''}'; expected 13.`);
  }
}
