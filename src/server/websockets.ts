// The websocket side of a running gateway: loaded on the first upgrade, one websocket gateway per
// served release, its options read from the configuration a reload last applied.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Gateway, GatewayState, Served } from '../gateway/app.js';
import { GatewayError } from '../gateway/errors.js';
import { assignIdentity } from '../gateway/observe/request-id.js';
import { select } from '../gateway/app.js';
import type { Metrics } from '../gateway/observe/metrics.js';
import type { AfterReload, WebsocketGateway, WebsocketOptions, WebsocketStats } from '../gateway/websocket/index.js';
import type { Logger } from '../log.js';

/** The websocket side's numbers, read at scrape time. */
export function websocketMetrics(metrics: Metrics, websockets: Websockets): void {
  metrics.addGauge('gateway_websocket_open', 'Websocket connections relaying now.', () => websockets.stats().open);
  metrics.addGauge('gateway_websocket_connecting', 'Websocket connections waiting for their upstream to open.', () => websockets.stats().connecting);
  metrics.addCounter('gateway_websocket_accepted_total', 'Websocket upgrades accepted.', () => websockets.stats().accepted);
  metrics.addCounter('gateway_websocket_refused_total', 'Websocket upgrades refused (unknown path, bad stream, over a limit).', () => websockets.stats().refused);
  metrics.addCounter('gateway_websocket_slow_clients_total', 'Websocket clients closed for leaving too many bytes unread.', () => websockets.stats().slowClients);
  metrics.addCounter('gateway_websocket_reload_closed_total', 'Websocket connections closed after a reload took away their stream, websocket API or release (--reload-closes-websockets).', () => websockets.stats().reloadClosed);
}

/** The websocket side of the gateway, across reloads. */
export interface Websockets extends Omit<WebsocketGateway, 'afterReload'> {
  /** After a swap: check the open connections of older programs against `state`; close the gone ones if `close`. */
  afterReload(state: GatewayState, close: boolean): AfterReload;
}

/**
 * The websocket side, loaded on the first upgrade (the ws package and the relay cost start-up time
 * a REST-only client never needs). Each served release gets its own websocket gateway, made on the
 * first upgrade that asks for it (the /@<id>/ prefix or X-Gateway-Release, as for HTTP); a reload
 * brings new ones for new upgrades while open connections keep running on theirs. An older one is
 * let go once nothing is open on it (its counts are kept).
 */
export function lazyWebsockets(gateway: Gateway, optionsFor: (served: Served) => WebsocketOptions, logger: Logger): Websockets {
  let module: Promise<typeof import('../gateway/websocket/index.js')> | undefined;
  const made = new Map<Served, WebsocketGateway>();
  const retired: WebsocketStats = { open: 0, connecting: 0, accepted: 0, refused: 0, slowClients: 0, reloadClosed: 0 };
  const add = (into: WebsocketStats, from: WebsocketStats) => { for (const k of Object.keys(into) as (keyof WebsocketStats)[]) into[k] += from[k]; };
  /** Drop the websocket gateways of replaced programs that have nothing open any more. */
  const prune = () => {
    const current = gateway.state().served;
    for (const [served, w] of made) {
      const s = w.stats();
      if (current.includes(served) || s.open || s.connecting) continue;
      add(retired, s);
      made.delete(served);
    }
  };
  const forServed = (m: typeof import('../gateway/websocket/index.js'), served: Served) => {
    let w = made.get(served);
    if (!w) made.set(served, (w = m.createWebsocketGateway(optionsFor(served))));
    return w;
  };
  let closed = false;
  const refuse = (req: IncomingMessage, socket: Duplex, e: GatewayError): void => {
    void (module ??= import('../gateway/websocket/index.js')).then((m) => forServed(m, gateway.state().default).refuse(req, socket, e));
  };
  return {
    upgrade(req, socket, head) {
      socket.on('error', () => {}); // a reset while the module loads must not be an unhandled 'error'
      // Stopping: refused like the GETs a stopping gateway leaves to other replicas (503, Retry-After),
      // never upgraded, even by a release's websocket gateway made after close().
      const stopping = gateway.handOver.refusalOf('a websocket upgrade') ?? (closed ? new GatewayError('overloaded', 'this gateway is stopping: a websocket upgrade is left to another replica; retry', { 'retry-after': '1' }) : undefined);
      if (stopping) return refuse(req, socket, stopping);
      (module ??= import('../gateway/websocket/index.js')).then((m) => {
        const state = gateway.state();
        const chosen = select(state, req);
        // A release not served is refused by the default release's websocket gateway, like any refusal.
        if ('error' in chosen) return forServed(m, chosen.served).refuse(req, socket, chosen.error);
        forServed(m, chosen.served).upgrade(req, socket, head);
      }).catch((e: unknown) => {
        logger.error(`websocket upgrade failed: ${(e as Error)?.stack ?? String(e)}`);
        socket.destroy();
      });
    },
    refuse,
    stats: () => {
      const sum = { ...retired };
      for (const w of made.values()) add(sum, w.stats());
      return sum;
    },
    revoke: (tokens) => [...made.values()].reduce((n, w) => n + w.revoke(tokens), 0),
    afterReload(state, close) {
      const out = { gone: 0, closed: 0 };
      for (const [served, w] of made) {
        if (state.served.includes(served)) continue;
        const next = served.id === undefined ? state.default : state.byId.get(served.id);
        const r = w.afterReload(next?.views, close);
        out.gone += r.gone;
        out.closed += r.closed;
      }
      prune();
      return out;
    },
    close: async () => {
      closed = true;
      await Promise.all([...made.values()].map((w) => w.close()));
    },
  };
}

/** One line after a reload that took away what open websockets relay: how many were closed, or kept. */
export function reportWebsockets(r: AfterReload, close: boolean, logger: Logger): void {
  if (!r.gone) return;
  const what = 'whose stream, websocket API or release is no longer served';
  if (close) logger.info(`reload closed ${r.closed} websocket connection(s) ${what} (1001, --reload-closes-websockets)`);
  else logger.info(`reload kept ${r.gone} open websocket connection(s) ${what}: they run on the previous program until they end (--reload-closes-websockets closes them)`);
}


/** Send the server's upgrades to the websocket side; whatever an upgrade throws ends that socket, never the process. */
export function acceptUpgrades(server: Server, websockets: Websockets, logger: Logger): void {
  server.on('upgrade', (req, socket, head) => {
    assignIdentity(req, performance.now()); // the upgrade's id and arrival, before the websocket module loads
    try {
      websockets.upgrade(req, socket, head);
    } catch (e) {
      logger.error(`ws upgrade → 500: ${(e as Error)?.stack ?? String(e)}`);
      socket.destroy();
    }
  });
}

/** After a swap: check open websockets against the new programs; a fault here must not undo the reload's report. */
export function websocketsAfterReload(websockets: Websockets, state: GatewayState, close: boolean, logger: Logger): void {
  try {
    reportWebsockets(websockets.afterReload(state, close), close, logger);
  } catch (e) {
    logger.error(`websockets after reload: ${(e as Error)?.stack ?? String(e)}`);
  }
}
