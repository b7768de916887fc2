// Shutdown: hand over to the other replicas (with --accept-grace), stop accepting, let in-flight
// requests finish (bounded by the grace), then close the websockets, the upstream pool, the builder
// threads and the rate limiter's store.
import type { Server } from 'node:http';
import type { Gateway } from '../gateway/app.js';
import type { Logger } from '../log.js';

export interface Drained {
  server: Server;
  gateway: Gateway;
  websockets: { close(): Promise<void> };
  builders?: { close(): Promise<void> };
  limits: { close(): Promise<void> };
  fleet?: { close(): Promise<void> };
  logger: Logger;
}

/**
 * Below the shortest time a passive balancer keeps a failed server out (nginx's fail_timeout counts
 * whole seconds, ≥ 1 s): once no connection came for this long, the balancer has taken this replica
 * out, and closing the listener resets nothing it sent.
 */
const QUIET_MS = 250;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function drain(d: Drained, graceMs: number, acceptGraceMs = 0): Promise<void> {
  const { server, gateway } = d;
  const ws = d.websockets.close(); // upgraded sockets would keep server.close() waiting; new upgrades are refused
  if (acceptGraceMs > 0) await handOver(server, gateway, acceptGraceMs, d.logger);
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const deadline = Date.now() + graceMs;
  while (gateway.adapter.inFlight() > 0 && Date.now() < deadline) {
    await sleep(10);
    server.closeIdleConnections(); // keep-alive sockets that just finished their last request
  }
  await ws;
  server.closeAllConnections();
  await closed;
  await gateway.close();
  await d.builders?.close();
  await d.limits.close();
  await d.fleet?.close();
}

/**
 * Closing a listener resets every connection the kernel completed but the process had not yet
 * accepted: a balancer that sent a POST on one cannot retry it (it may have been received), so the
 * client gets a 502. A balancer with passive health checks stops sending only after failures it sees;
 * so keep accepting, refuse what it retries elsewhere (the adapter's 503 + Retry-After), serve the rest,
 * and close once it has stopped sending (quiet) or the grace is over.
 */
async function handOver(server: Server, gateway: Gateway, acceptGraceMs: number, logger: Logger): Promise<void> {
  logger.info(`stopping: the listener stays open until no connection comes for ${QUIET_MS} ms (at most --accept-grace ${acceptGraceMs} ms); meanwhile idempotent requests are answered 503 for the balancer to send elsewhere, POST and PATCH are served`);
  const t0 = performance.now();
  gateway.handOver.active = true;
  // Idle keep-alive connections stay open: closing one could reset a request on its way; the answer
  // to the next request on it closes it. Requests on them count as traffic, like new connections.
  let last = performance.now();
  const arrived = () => { last = performance.now(); };
  server.on('connection', arrived);
  server.on('request', arrived);
  const end = last + acceptGraceMs;
  const waiting = () => { const now = performance.now(); return now < end && now - last < QUIET_MS; };
  do {
    while (waiting()) await sleep(Math.max(1, Math.min(end - performance.now(), last + QUIET_MS - performance.now())));
    // A timer that fires late (a stalled process) runs before the poll phase that accepts what the
    // kernel queued meanwhile: let that phase run once; a connection it takes means not quiet yet.
    await new Promise((r) => setImmediate(r));
  } while (waiting());
  server.off('connection', arrived);
  server.off('request', arrived);
  const quiet = performance.now() - last >= QUIET_MS;
  const took = (performance.now() - t0).toFixed(0);
  const line = `stopping: listener closed after ${took} ms (${quiet ? 'no new connection' : 'connections still coming: --accept-grace over'}); ${gateway.handOver.refused} request(s) left to other replicas`;
  if (quiet) logger.info(line);
  else logger.warn(`${line}: a request arriving as it closed may have been reset (a balancer sent no retryable request to learn from, or --accept-grace is shorter than it takes to notice)`);
}
