// Soak (issue 11): 100 000 proxied GETs at moderate concurrency (32 keep-alive connections) through
// the gateway to a local upstream, the gateway's RSS sampled every 10 000 requests. The gateway runs
// in its own process so its RSS is measured alone. Each sample reports RSS as it is (which saws with
// V8's major collections) and right after a full collection (--expose-gc in the gateway: what a leak
// moves). Passes (exit 0) when every post-collection RSS after the warm-up (the first 10 000
// requests) stays within ±20 MiB of the warm-up sample; the raw RSS's drift is printed beside it.
//   npm run build && node dist/bench/soak.js [requests] [connections]
import type { ChildProcess } from 'node:child_process';
import { Pool } from 'undici';
import { startProcess } from './proxy/processes.js';
import type { MemorySample } from './proxy/memory.js';

const TOTAL = Number(process.argv[2] ?? 100_000);
const CONNECTIONS = Number(process.argv[3] ?? 32);
const EVERY = 10_000;
const BAND_MIB = 20;
const PATH = process.env.BENCH_PATH ?? '/api/v3/klines?symbol=BTCUSDT&interval=1m&limit=10';
const MiB = 1024 * 1024;

const start = startProcess;

const memoryOf = (child: ChildProcess) => new Promise<MemorySample>((resolve) => {
  child.once('message', (m) => resolve(m as MemorySample));
  child.send('memory');
});

const upstream = await start('proxy/upstream.js');
const gateway = await start('proxy/gateway-forwarder.js', [`http://127.0.0.1:${upstream.port}`, '--rate-limit', 'off', '--log-level', 'error'], ['--expose-gc']);
const pool = new Pool(`http://127.0.0.1:${gateway.port}`, { connections: CONNECTIONS, keepAliveTimeout: 60_000 });

const samples: (MemorySample & { done: number; ms: number })[] = [];
samples.push({ done: 0, ...(await memoryOf(gateway.child)), ms: 0 });
let sent = 0, done = 0, bad = 0;
const started = performance.now();
let sampling = Promise.resolve();
await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
  while (sent < TOTAL) {
    sent++;
    const r = await pool.request({ path: PATH, method: 'GET' });
    await r.body.dump();
    if (r.statusCode !== 200) bad++;
    if (++done % EVERY === 0) {
      const at = done, ms = performance.now() - started;
      // Sampled while the other connections keep going: the figure is RSS under load.
      sampling = sampling.then(async () => { samples.push({ done: at, ...(await memoryOf(gateway.child)), ms }); });
    }
  }
}));
await sampling;
const secs = (performance.now() - started) / 1000;
await pool.close();
upstream.child.kill();
gateway.child.kill();
if (bad) console.log(`${bad} answers were not 200`);

console.log(`GET ${PATH}: ${TOTAL} proxied requests over ${CONNECTIONS} keep-alive connections in ${secs.toFixed(1)} s (${(TOTAL / secs).toFixed(0)} req/s)`);
const mib = (n = 0) => (n / MiB).toFixed(1);
console.log('requests   RSS (MiB)   heap used (MiB)   after full GC: RSS   heap');
for (const s of samples) console.log(`${String(s.done).padStart(8)}   ${mib(s.rss).padStart(9)}   ${mib(s.heapUsed).padStart(15)}   ${mib(s.rssAfterGc).padStart(18)}   ${mib(s.heapAfterGc).padStart(4)}`);
const base = samples.find((s) => s.done === EVERY)!;
const after = samples.filter((s) => s.done > EVERY);
const worst = (xs: number[]) => xs.reduce((w, d) => (Math.abs(d) > Math.abs(w) ? d : w), 0);
const signed = (d: number) => `${d >= 0 ? '+' : ''}${d.toFixed(1)} MiB`;
const gcDrift = worst(after.map((s) => (s.rssAfterGc! - base.rssAfterGc!) / MiB));
const rawDrift = worst(after.map((s) => (s.rss - base.rss) / MiB));
const flat = Math.abs(gcDrift) <= BAND_MIB;
console.log(`after warm-up (${EVERY} requests): RSS after full GC ${mib(base.rssAfterGc)} MiB, largest drift ${signed(gcDrift)} → ${flat ? 'flat' : 'NOT flat'} (band ±${BAND_MIB} MiB); raw RSS ${mib(base.rss)} MiB, largest drift ${signed(rawDrift)}`);
process.exitCode = flat && !bad ? 0 : 1;
