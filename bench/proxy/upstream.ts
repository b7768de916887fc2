// Minimal upstream for the proxy benchmark: a fixed JSON answer, keep-alive. One kline by default;
// BENCH_ROWS=N answers N of them (8 000: ~780 KB, for what large answers cost).
import { createServer } from 'node:http';

const row = [1700000000000, '1.0', '2.0', '0.5', '1.5', '100', 1700000059999, '150', 10, '50', '75', '0'];
const body = JSON.stringify(Array.from({ length: Number(process.env.BENCH_ROWS ?? 1) }, () => row));
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json;charset=UTF-8', 'content-length': Buffer.byteLength(body), 'x-mbx-used-weight-1m': '2' });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  console.log(`port ${typeof a === 'object' && a ? a.port : 0}`);
});
