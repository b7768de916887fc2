// Rate-limit cost: CPU per proxied request of the gateway with the catalogue's limits on (in-process
// store) versus off, each in its own process, in the same run, against the same local upstream
// (whose answers carry X-MBX-USED-WEIGHT-1M, so learning is measured too). The limits are raised in
// a catalogue copy so that no request is refused: every request pays the full counting path.
// With redis-server installed, a third gateway counts in Redis: the added latency per request (p50/p99).
//   npm run build && node dist/bench/rate-limit.js [requests-per-round] [rounds]
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONCURRENCY, cpuOf, drive, PATH } from './proxy/drive.js';
import { startProcess, track } from './proxy/processes.js';

const PER_ROUND = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 5);
const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));

const start = startProcess;

/** The repository's catalogue with every rate limit raised out of reach. */
function catalogueWithoutReach(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-rate-limit-'));
  cpSync(here('../../catalogue'), dir, { recursive: true });
  const file = join(dir, 'exchange/service.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace(/^( {4}limit: )\d+$/gm, '$11000000000'));
  return dir;
}

async function startRedis(): Promise<string | null> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  const child = track(spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'ignore'] }));
  return new Promise((resolve) => {
    child.once('error', () => resolve(null)); // not installed: the Redis figures are skipped
    child.stdout!.on('data', (d: Buffer) => { if (/Ready to accept connections/.test(d.toString())) resolve(`redis://127.0.0.1:${port}/0`); });
  });
}

async function cpuPerRequest(f: { child: ChildProcess; port: number }, latencies: number[]): Promise<number> {
  const before = await cpuOf(f.child);
  await drive(f.port, PER_ROUND, latencies);
  return (await cpuOf(f.child) - before) / PER_ROUND;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

const upstream = await start('proxy/upstream.js');
const upstreamUrl = `http://127.0.0.1:${upstream.port}`;
const catalogue = catalogueWithoutReach();
const redisUrl = await startRedis();
const procs: Record<string, { child: ChildProcess; port: number }> = {
  off: await start('proxy/gateway-forwarder.js', [upstreamUrl, '--catalogue', catalogue, '--rate-limit', 'off', '--log-level', 'error']),
  on: await start('proxy/gateway-forwarder.js', [upstreamUrl, '--catalogue', catalogue, '--rate-limit', 'on', '--log-level', 'error']),
};
if (redisUrl) procs.redis = await start('proxy/gateway-forwarder.js', [upstreamUrl, '--catalogue', catalogue, '--rate-limit-store', redisUrl, '--log-level', 'error']);
const names = Object.keys(procs);
for (const n of names) await drive(procs[n].port, 3000); // warm up JIT, pools, the Redis connection
const cpu: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
const lat: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
for (let i = 0; i < ROUNDS; i++) {
  // Interleaved so drift in machine load hits all alike (the order reversed every other round);
  // ratios are taken within a round.
  const r: Record<string, number> = {};
  for (const n of i % 2 ? [...names].reverse() : names) r[n] = await cpuPerRequest(procs[n], lat[n]);
  for (const n of names) cpu[n].push(r[n]);
  console.log(`round ${i + 1}: ${names.map((n) => `${n} ${r[n].toFixed(1)} µs`).join(', ')}; on/off ${(r.on / r.off).toFixed(3)}`);
}
const ratios = cpu.on.map((c, i) => c / cpu.off[i]);
console.log(`\nGET ${PATH}, ${PER_ROUND} requests x ${ROUNDS} rounds, concurrency ${CONCURRENCY}; CPU per request of the gateway process (median)`);
console.log(`limits off:                 ${median(cpu.off).toFixed(1)} µs`);
console.log(`limits on, in-process store: ${median(cpu.on).toFixed(1)} µs`);
console.log(`ratio on/off: ${median(ratios).toFixed(3)} (median of per-round ratios; target ≤ 1.05)`);
if (redisUrl) {
  console.log(`limits on, Redis store:      ${median(cpu.redis).toFixed(1)} µs (ratio to off ${median(cpu.redis.map((c, i) => c / cpu.off[i])).toFixed(3)})`);
  for (const n of names) console.log(`latency ${n.padEnd(5)} p50 ${pct(lat[n], 0.5).toFixed(2)} ms, p99 ${pct(lat[n], 0.99).toFixed(2)} ms`);
  console.log(`added by Redis vs off: p50 ${(pct(lat.redis, 0.5) - pct(lat.off, 0.5)).toFixed(2)} ms, p99 ${(pct(lat.redis, 0.99) - pct(lat.off, 0.99)).toFixed(2)} ms (concurrency ${CONCURRENCY})`);
} else {
  console.log('redis-server not installed: Redis latency not measured');
}
process.exit(0);
