// Baseline for the proxy benchmark: the least a forwarder can do — node:http in, undici out,
// same keep-alive pool settings as the gateway, no routing, no validation.
// With --gateway-headers it also sends and answers the headers the gateway must (X-Forwarded-For,
// Forwarded, X-Request-Id and traceparent upstream; X-Gateway-Release and X-Request-Id back, all
// fixed strings): node and undici validate and serialise every header, and this baseline shows
// what those headers cost apart from the gateway's own stages.
import { createServer } from 'node:http';
import { Agent } from 'undici';
import { reportCpuOnRequest } from './cpu.js';

const upstream = new URL(process.argv[2]);
const withGatewayHeaders = process.argv.includes('--gateway-headers');
const ID = '0f8fad5b-d9cb-469f-a165-70867728950e';
// A proxy must at least drop hop-by-hop headers and pass the end-to-end ones.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length', 'expect']);
const agent = new Agent({ connections: 128, keepAliveTimeout: 30_000 });
const server = createServer(async (req, res) => {
  try {
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) headers[k] = v;
    if (withGatewayHeaders) {
      headers['x-forwarded-for'] = '127.0.0.1';
      headers.forwarded = 'for=127.0.0.1;proto=http';
      headers['x-request-id'] = ID;
      headers.traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    }
    const up = await agent.request({ origin: upstream.origin, path: req.url ?? '/', method: req.method as 'GET', headers });
    const chunks: Buffer[] = [];
    for await (const chunk of up.body) chunks.push(chunk as Buffer);
    const answer = up.headers as Record<string, string>;
    if (withGatewayHeaders) {
      answer['x-gateway-release'] = '3.12.0';
      answer['x-request-id'] = ID;
    }
    res.writeHead(up.statusCode, answer);
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
