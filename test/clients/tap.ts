// A recording pass-through between a real client and the gateway: it keeps the exact request line
// and body each client sent, so a test can compare them with what reached the upstream, and the
// gateway's answer to each (status and body), so a test can read a refusal the client only throws.
import { request, createServer, type Server } from 'node:http';
import type { RunningGateway } from '../../src/server.js';
import { API_KEY, SECRET, gatewayAt } from '../support/gateway.js';
import { startUpstream, type Upstream } from '../support/processes.js';

export interface Sent {
  method: string;
  url: string;
  body: string;
}

/** A request as sent and the answer it got back through the tap. */
export interface Answered extends Sent {
  status: number;
  answer: string;
}

export interface Tap {
  url: string;
  sent: Sent[];
  answered: Answered[];
  close(): Promise<void>;
}

/** Start a tap on 127.0.0.1 that forwards everything, unchanged, to `target` (an http origin). */
export function startTap(target: string): Promise<Tap> {
  const to = new URL(target);
  const sent: Sent[] = [];
  const answered: Answered[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      sent.push({ method: req.method ?? '', url: req.url ?? '', body: body.toString('utf8') });
      const out = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        const chunks: Buffer[] = [];
        up.on('data', (c: Buffer) => chunks.push(c));
        up.on('end', () => answered.push({ method: req.method ?? '', url: req.url ?? '', body: body.toString('utf8'), status: up.statusCode ?? 502, answer: Buffer.concat(chunks).toString('utf8') }));
        up.pipe(res);
      });
      out.on('error', (e) => { res.writeHead(502); res.end(String(e)); });
      out.end(body);
    });
  });
  // The gateway's Keep-Alive header (timeout=65, its default) reaches the client through the tap, so
  // the tap keeps an idle connection at least as long: closing it after 1 s, as it did, raced a client
  // reusing it (ccxt-today once saw `read ECONNRESET`). close() ends every connection anyway.
  server.keepAliveTimeout = 70_000;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const addr = server.address() as { port: number };
    resolve({
      url: `http://127.0.0.1:${addr.port}`,
      sent,
      answered,
      close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
    });
  }));
}

/** The verifying upstream, a gateway serving `release` in front of it, and a tap in front of the gateway. */
export interface Tapped {
  upstream: Upstream;
  gw: RunningGateway;
  tap: Tap;
}

/**
 * Starts a Tapped before the suite's tests and stops it after them; its fields are set once they start.
 * `fixtures`: the upstream's folder of realistic answers (exchange-upstream.ts).
 */
export function tappedGateway(test: { before(f: () => Promise<void>): void; after(f: () => Promise<void>): void }, release: string, extra: string[] = [], fixtures?: string): Tapped {
  const t = {} as Tapped;
  test.before(async () => {
    t.upstream = await startUpstream({ [API_KEY]: { hmac: SECRET } }, fixtures);
    t.gw = await gatewayAt(release, t.upstream.url, extra);
    t.tap = await startTap(t.gw.url);
  });
  test.after(async () => {
    await t.tap?.close();
    await t.gw?.close();
    await t.upstream?.stop();
  });
  return t;
}

/**
 * After one call through the tap: how the last request the upstream received differs from the last
 * one the client sent (a line naming the call and both), or null when it reached the upstream unchanged.
 */
export async function forwardingChange(t: Tapped, call: string): Promise<string | null> {
  const got = (await t.upstream.records()).at(-1)!;
  const sent = t.tap.sent.at(-1)!;
  return got.url !== sent.url || got.body !== sent.body || got.method !== sent.method ? `${call}: sent ${sent.url} ${sent.body}, forwarded ${got.url} ${got.body}` : null;
}
