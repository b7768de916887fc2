// Shutdown: stop accepting, let in-flight requests finish (bounded by the grace), then close the
// websockets, the upstream pool, the builder threads and the rate limiter's store.
import type { Server } from 'node:http';
import type { Gateway } from '../gateway/app.js';

export interface Drained {
  server: Server;
  gateway: Gateway;
  websockets: { close(): Promise<void> };
  builders?: { close(): Promise<void> };
  limits: { close(): Promise<void> };
  fleet?: { close(): Promise<void> };
}

export async function drain(d: Drained, graceMs: number): Promise<void> {
  const { server, gateway } = d;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const deadline = Date.now() + graceMs;
  const ws = d.websockets.close(); // upgraded sockets would keep server.close() waiting
  while (gateway.adapter.inFlight() > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
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
