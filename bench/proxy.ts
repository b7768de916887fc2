// Proxy cost: CPU time per proxied request of the gateway versus a bare node:http + undici
// forwarder, each in its own process, in the same run, against the same local upstream. Two
// baselines: the natural minimal forwarder (undici request(), the issue's yardstick) and the same
// forwarder on undici's dispatch() API, which the gateway uses (isolating the gateway's stages).
// The load generator (this process) is the same for both, so its cost cancels out of the ratio.
//   npm run build && node dist/bench/proxy.js [requests-per-round] [rounds]
// A second copy of the bare forwarder gives the run's own noise floor (an A/A ratio).
import type { ChildProcess } from 'node:child_process';
import { CONCURRENCY, drive, measure as measureOver, PATH } from './proxy/drive.js';
import { startProcess } from './proxy/processes.js';

const PER_ROUND = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 5);

const start = startProcess;
const measure = (f: Parameters<typeof measureOver>[0]) => measureOver(f, PER_ROUND);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const upstream = await start('proxy/upstream.js');
const upstreamUrl = `http://127.0.0.1:${upstream.port}`;
const procs = {
  bare: await start('proxy/bare-forwarder.js', [upstreamUrl]),
  // The same bare forwarder again: bareAgain/bare should be 1, and how far it strays is the noise
  // floor of this run (the machine is shared): a gateway ratio within it of the target is not decided.
  bareAgain: await start('proxy/bare-forwarder.js', [upstreamUrl]),
  bareDispatch: await start('proxy/bare-dispatch-forwarder.js', [upstreamUrl]),
  bareHeaders: await start('proxy/bare-forwarder.js', [upstreamUrl, '--gateway-headers']),
  // Without the exchange's rate limits: the rounds send far more than its weight per minute (bench/rate-limit.ts measures them).
  gateway: await start('proxy/gateway-forwarder.js', [upstreamUrl, '--rate-limit', 'off']),
  // Every release of the catalogue in one process (issue 14): requests take the default, 3.12.0.
  gatewayAll: await start('proxy/gateway-forwarder.js', [upstreamUrl, '--rate-limit', 'off', '--release', 'all']),
};
type Name = keyof typeof procs;
const names = Object.keys(procs) as Name[];
for (const n of names) await drive(procs[n].port, 3000); // warm up JIT and pools
const cpu = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Name, number[]>;
const rps = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Name, number[]>;
for (let i = 0; i < ROUNDS; i++) {
  // Interleave so drift in machine load hits all alike; ratios are taken within a round. The
  // order turns by one each round: each forwarder runs in every position (first after a pause,
  // right after the gateway, …) equally often, so no position effect sides with one of them.
  const r = {} as Record<Name, { cpuUs: number; rps: number }>;
  for (const n of [...names.slice(i % names.length), ...names.slice(0, i % names.length)]) r[n] = await measure(procs[n]);
  for (const n of names) { cpu[n].push(r[n].cpuUs); rps[n].push(r[n].rps); }
  console.log(`round ${i + 1}: ${names.map((n) => `${n} ${r[n].cpuUs.toFixed(1)} µs`).join(', ')}; gateway/bare ${(r.gateway.cpuUs / r.bare.cpuUs).toFixed(3)}, gateway/bareDispatch ${(r.gateway.cpuUs / r.bareDispatch.cpuUs).toFixed(3)}`);
}
const ratios = (base: Name, of: Name = 'gateway') => cpu[of].map((g, i) => g / cpu[base][i]);
const memoryOf = (child: ChildProcess) => new Promise<number>((resolve) => {
  child.once('message', (m) => resolve((m as { rss: number }).rss / 1024 / 1024));
  child.send('memory');
});
console.log(`\nGET ${PATH}, ${PER_ROUND} requests x ${ROUNDS} rounds, concurrency ${CONCURRENCY}; CPU per request of the forwarding process (median)`);
console.log(`bare node:http + undici request() forwarder:  ${median(cpu.bare).toFixed(1)} µs, ${median(rps.bare).toFixed(0)} req/s`);
console.log(`bare node:http + undici dispatch() forwarder: ${median(cpu.bareDispatch).toFixed(1)} µs, ${median(rps.bareDispatch).toFixed(0)} req/s`);
console.log(`gateway (route, lifecycle, validation, proxy): ${median(cpu.gateway).toFixed(1)} µs, ${median(rps.gateway).toFixed(0)} req/s`);
console.log(`ratio gateway/bare request(): ${median(ratios('bare')).toFixed(3)} (median of per-round ratios)`);
const aa = median(ratios('bare', 'bareAgain'));
console.log(`noise floor: the same bare forwarder twice, bareAgain/bare ${aa.toFixed(3)} (A/A; per-round spread ${Math.min(...ratios('bare', 'bareAgain')).toFixed(2)}–${Math.max(...ratios('bare', 'bareAgain')).toFixed(2)})${Math.abs(aa - 1) > 0.02 ? ': this run cannot tell a few per cent apart' : ''}`);
console.log(`ratio gateway/bare dispatch(): ${median(ratios('bareDispatch')).toFixed(3)} (median of per-round ratios)`);
console.log(`ratio gateway/(bare request() + the gateway's headers, ${median(cpu.bareHeaders).toFixed(1)} µs): ${median(ratios('bareHeaders')).toFixed(3)} (the gateway's stages apart from the headers it must add)`);
console.log(`gateway --release all (44 programs): ${median(cpu.gatewayAll).toFixed(1)} µs; ratio to the single-release gateway: ${median(ratios('gateway', 'gatewayAll')).toFixed(3)}`);
console.log(`RSS after the run: single release ${(await memoryOf(procs.gateway.child)).toFixed(0)} MiB, every release ${(await memoryOf(procs.gatewayAll.child)).toFixed(0)} MiB`);
for (const p of [...Object.values(procs), upstream]) p.child.kill();
