// Second baseline for the proxy benchmark: the same minimal forwarder on undici's dispatch()
// handler API, which the gateway's proxy uses; against it the ratio isolates what the gateway's
// own stages (routing, lifecycle, validation, hooks, metrics) cost.
import { createServer } from 'node:http';
import { Agent, type Dispatcher } from 'undici';
import { reportCpuOnRequest } from './cpu.js';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length', 'expect']);
const upstream = new URL(process.argv[2]);
const agent = new Agent({ connections: 128, keepAliveTimeout: 30_000 });
const server = createServer((req, res) => {
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) headers[k] = v;
  let status = 0;
  let out: Record<string, string | string[]> = {};
  const chunks: Buffer[] = [];
  agent.dispatch({ origin: upstream.origin, path: req.url ?? '/', method: req.method as Dispatcher.HttpMethod, headers }, {
    onRequestStart() { /* undici recognises the handler API by this method */ },
    onResponseStart(_c, statusCode, h) {
      status = statusCode;
      out = {};
      for (const [k, v] of Object.entries(h)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
    },
    onResponseData(_c, chunk) { chunks.push(chunk); },
    onResponseEnd() {
      const body = Buffer.concat(chunks);
      res.writeHead(status, { ...out, 'content-length': body.length });
      res.end(body);
    },
    onResponseError() { res.statusCode = 502; res.end(); },
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  console.log(`port ${typeof a === 'object' && a ? a.port : 0}`);
});
reportCpuOnRequest();
