// Baseline for the proxy benchmark: the least a forwarder can do — node:http in, undici out,
// same keep-alive pool settings as the gateway, no routing, no validation.
import { createServer } from 'node:http';
import { Agent } from 'undici';
import { reportCpuOnRequest } from './cpu.js';

const upstream = new URL(process.argv[2]);
// A proxy must at least drop hop-by-hop headers and pass the end-to-end ones.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length', 'expect']);
const agent = new Agent({ connections: 128, keepAliveTimeout: 30_000 });
const server = createServer(async (req, res) => {
  try {
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) headers[k] = v;
    const up = await agent.request({ origin: upstream.origin, path: req.url ?? '/', method: req.method as 'GET', headers });
    const chunks: Buffer[] = [];
    for await (const chunk of up.body) chunks.push(chunk as Buffer);
    res.writeHead(up.statusCode, up.headers as Record<string, string>);
    res.end(Buffer.concat(chunks));
  } catch {
    res.statusCode = 502;
    res.end();
  }
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  console.log(`port ${typeof a === 'object' && a ? a.port : 0}`);
});
reportCpuOnRequest();
