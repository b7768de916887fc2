// Observability cost per request: CPU time of what the gateway added to every request for logs,
// request ids and metrics, measured on the real functions the adapter calls (request-id.ts,
// access-record.ts, metrics.ts, log.ts), each part on its own so a regression points at its cause.
//   npm run build && node dist/bench/observe.js [iterations]
// Budget (issue 15): the metrics observations ≤ 1 µs of CPU per request. The access line's cost
// depends on where it is written; its formatting, a write per line and the batched writes the
// gateway makes (src/log-buffer.ts, to /dev/null) are shown.
import { closeSync, openSync, writeSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { recordRequest } from '../src/gateway/observe/access-record.js';
import { Metrics } from '../src/gateway/observe/metrics.js';
import type { Exchange } from '../src/gateway/pipeline.js';
import { identify, identityOf } from '../src/gateway/observe/request-id.js';
import { createLogger, type Logger } from '../src/log.js';
import { bufferedLines } from '../src/log-buffer.js';

const N = Number(process.argv[2] ?? 300_000);
const BUDGET_US = 1;

/** CPU µs per call of `f` (user + system), after a warm-up of a tenth of the run. */
function cpuPerCall(f: (i: number) => void): number {
  for (let i = 0; i < N / 10; i++) f(i);
  const before = process.cpuUsage();
  for (let i = 0; i < N; i++) f(i);
  const d = process.cpuUsage(before);
  return (d.user + d.system) / N;
}

// The shapes the adapter hands these functions: a parsed request on a socket, its answer, and the
// exchange of a proxied catalogue route at a release.
const ROUTES = ['/api/v3/ping', '/api/v3/klines', '/api/v3/depth', '/api/v3/order', '/api/v3/account', '/api/v3/ticker/price'];
const STATUSES = [200, 200, 200, 200, 400, 404];
const socket = { bytesWritten: 0 };
function request(i: number, headers: Record<string, string>): { req: IncomingMessage; res: ServerResponse; ex: Exchange } {
  socket.bytesWritten += 300;
  const req = { method: 'GET', url: `${ROUTES[i % ROUTES.length]}?symbol=BTCUSDT`, headers, socket } as unknown as IncomingMessage;
  const res = { headersSent: true, statusCode: STATUSES[i % STATUSES.length], setHeader() {} } as unknown as ServerResponse;
  const ex = { route: { endpoint: { endpoint: { path: ROUTES[i % ROUTES.length] } } }, view: { release: { id: '3.12.0' } } } as unknown as Exchange;
  return { req, res, ex };
}

const prepared = Array.from({ length: 64 }, (_, i) => {
  const r = request(i, { 'x-request-id': `client-${i}`, traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' });
  identify(r.req, r.res);
  identityOf(r.req)!.upstreamAt = performance.now() - 1;
  return r;
});

function recordWith(logger: Logger, metrics: Metrics) {
  const o = { logger, metrics };
  const arrived = performance.now() - 2;
  return (i: number) => { const r = prepared[i & 63]; recordRequest(o, r.req, r.res, arrived, r.ex); };
}

const devNull = openSync('/dev/null', 'w');
const rows: [string, number][] = [];
const empty = request(0, {});
rows.push(['request id + traceparent, generated', cpuPerCall(() => identify(empty.req, empty.res))]);
const given = request(0, { 'x-request-id': 'abc-123', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' });
rows.push(['request id + traceparent, from the client', cpuPerCall(() => identify(given.req, given.res))]);
const metricsOnly = cpuPerCall(recordWith(createLogger('silent'), new Metrics()));
rows.push(['metrics (request + upstream histograms), log off', metricsOnly]);
rows.push(['+ access line formatted (JSON, discarded)', cpuPerCall(recordWith(createLogger('info', () => {}), new Metrics()))]);
rows.push(['+ access line written, one write each (/dev/null)', cpuPerCall(recordWith(createLogger('info', (l) => { writeSync(devNull, l); }), new Metrics()))]);
const batched = bufferedLines(devNull);
rows.push(['+ access line written in 32 KiB batches (/dev/null)', cpuPerCall(recordWith(createLogger('info', (l) => batched.write(l)), new Metrics()))]);
batched.close();
closeSync(devNull);

console.log(`observability CPU per request (${N} iterations each)`);
for (const [what, us] of rows) console.log(`  ${what.padEnd(52)} ${us.toFixed(3)} µs`);
const ok = metricsOnly <= BUDGET_US;
console.log(`metrics ${metricsOnly.toFixed(3)} µs/request: ${ok ? 'within' : 'OVER'} the ${BUDGET_US} µs budget`);
if (!ok) process.exitCode = 1;
