// A recording pass-through between a real client and the gateway: it keeps the exact request line
// and body each client sent, so a test can compare them with what reached the upstream.
import { request, createServer, type Server } from 'node:http';

export interface Sent {
  method: string;
  url: string;
  body: string;
}

export interface Tap {
  url: string;
  sent: Sent[];
  close(): Promise<void>;
}

/** Start a tap on 127.0.0.1 that forwards everything, unchanged, to `target` (an http origin). */
export function startTap(target: string): Promise<Tap> {
  const to = new URL(target);
  const sent: Sent[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      sent.push({ method: req.method ?? '', url: req.url ?? '', body: body.toString('utf8') });
      const out = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      out.on('error', (e) => { res.writeHead(502); res.end(String(e)); });
      out.end(body);
    });
  });
  server.keepAliveTimeout = 1000;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const addr = server.address() as { port: number };
    resolve({
      url: `http://127.0.0.1:${addr.port}`,
      sent,
      close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
    });
  }));
}
