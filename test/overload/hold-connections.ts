// A separate process holding silent connections (so the test's own client is never stalled by
// them): `node hold-connections.js <port> <count> <max-ms>` opens <count> connections at once,
// sends nothing, prints "opened <ms>" once all are open, then one JSON line when all have been
// closed by the server (or <max-ms> passed): when each closed (ms after the start, -1 if still
// open) and how many were answered 503 first.
import { connect } from 'node:net';

const [port, count, maxMs] = process.argv.slice(2).map(Number);
const t0 = performance.now();
const closedAt: number[] = new Array(count).fill(-1);
const answers: string[] = new Array(count).fill('');
let connected = 0;
let closed = 0;
const sockets = Array.from({ length: count }, (_, i) => {
  const s = connect(port, '127.0.0.1');
  s.on('data', (d) => { answers[i] += d.toString('latin1'); });
  s.on('error', () => {});
  const settled = () => { if (++connected === count) console.log(`opened ${(performance.now() - t0).toFixed(0)}`); };
  s.once('connect', settled);
  s.once('close', () => {
    closedAt[i] = performance.now() - t0;
    if (answers[i] === '' && s.connecting) settled();
    if (++closed === count) done();
  });
  return s;
});
const timer = setTimeout(done, maxMs);
function done(): void {
  clearTimeout(timer);
  console.log(JSON.stringify({ closedAt, refused: answers.filter((a) => a.startsWith('HTTP/1.1 503 ')).length }));
  for (const s of sockets) s.destroy();
  process.exit(0);
}
