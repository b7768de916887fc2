// The probes' own listener (--health-port): plain HTTP on --host, serving /_gateway/health and
// /_gateway/ready with the gateway's own answers and 404 to anything else. With --tls-client-ca the
// main port refuses a handshake without a client certificate, and a kubelet or balancer probe has
// none; nothing but the two probe paths is reachable here, so no client traffic bypasses TLS.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const PROBES = new Set(['/_gateway/health', '/_gateway/ready']);
const ELSEWHERE = 'This port serves only /_gateway/health and /_gateway/ready (--health-port).\n';

export interface ProbeListener {
  url: string;
  close(): Promise<void>;
}

export async function listenForProbes(host: string, port: number, handler: (req: IncomingMessage, res: ServerResponse) => void, headersTimeoutMs: number): Promise<ProbeListener> {
  const server: Server = createServer({ headersTimeout: headersTimeoutMs, requestTimeout: headersTimeoutMs + 5000 }, (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if ((req.method === 'GET' || req.method === 'HEAD') && PROBES.has(path)) return handler(req, res);
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(ELSEWHERE) }).end(ELSEWHERE);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(Object.assign(new Error(`--health-port ${port}: cannot listen on ${host}:${port} (${e.code ?? e.message})`), { code: e.code })));
    server.listen({ port, host }, () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${actual}`,
    close: () => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
  };
}
