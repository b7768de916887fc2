// The start-up baseline: the smallest node:http server that answers 200 on /_gateway/health.
//   node dist/bench/startup/bare-server.js <port>
import { createServer } from 'node:http';

createServer((req, res) => {
  res.writeHead(req.url === '/_gateway/health' ? 200 : 404, { 'content-type': 'application/json' });
  res.end('{"status":"ok"}');
}).listen(Number(process.argv[2]), '127.0.0.1');
