// Proxy cost: CPU time per proxied request of the gateway versus a bare node:http + undici
// forwarder, each in its own process, in the same run, against the same local upstream. The
// gateway runs as it ships: default flags, its JSON access log on stderr, a pipe that a separate
// process drains (./proxy/log-drain.ts); rate limits are off only because these rounds send far
// more than the exchange's weight per minute and would be answered 429 (bench/rate-limit.ts
// measures them). Beside it: the gateway at --log-level warn (no access lines: what the log costs),
// two more baselines — the same minimal forwarder on undici's dispatch() API, which the gateway
// uses (isolating the gateway's stages), and with the headers the gateway must add — and, where
// installed, nginx with and without a buffered access log (./proxy/nginx.ts).
// The load generator (this process) is the same for all, so its cost cancels out of the ratios.
//   npm run build && node dist/bench/proxy.js [requests-per-round] [rounds]
// A second copy of the bare forwarder gives the run's own noise floor (an A/A ratio).
import type { ChildProcess } from 'node:child_process';
import { CONCURRENCY, drive, measure as measureOver, PATH, type Forwarder } from './proxy/drive.js';
import { logDrain } from './proxy/log-drain.js';
import { nginxInstalled, startNginx } from './proxy/nginx.js';
import { startProcess } from './proxy/processes.js';

const PER_ROUND = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 5);

const measure = (f: Forwarder) => measureOver(f, PER_ROUND);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const upstream = await startProcess('proxy/upstream.js');
const upstreamUrl = `http://127.0.0.1:${upstream.port}`;
const OFF = ['--rate-limit', 'off'];
const drains = { gateway: logDrain(), gatewayAll: logDrain() };
const procs: Record<string, Forwarder & { child: ChildProcess }> = {
  bare: await startProcess('proxy/bare-forwarder.js', [upstreamUrl]),
  // The same bare forwarder again: bareAgain/bare should be 1, and how far it strays is the noise
  // floor of this run (the machine is shared): a gateway ratio within it of the target is not decided.
  bareAgain: await startProcess('proxy/bare-forwarder.js', [upstreamUrl]),
  bareDispatch: await startProcess('proxy/bare-dispatch-forwarder.js', [upstreamUrl]),
  bareHeaders: await startProcess('proxy/bare-forwarder.js', [upstreamUrl, '--gateway-headers']),
  gateway: await startProcess('proxy/gateway-forwarder.js', [upstreamUrl, ...OFF], [], drains.gateway.pipe),
  gatewayWarn: await startProcess('proxy/gateway-forwarder.js', [upstreamUrl, ...OFF, '--log-level', 'warn']),
  // Every release of the catalogue in one process (issue 14): requests take the default, 3.12.0.
  gatewayAll: await startProcess('proxy/gateway-forwarder.js', [upstreamUrl, ...OFF, '--release', 'all'], [], drains.gatewayAll.pipe),
};
if (nginxInstalled()) {
  procs.nginx = await startNginx(upstreamUrl, true);
  procs.nginxNoLog = await startNginx(upstreamUrl, false);
}
const names = Object.keys(procs);
const WARM = 3000;
for (const n of names) await drive(procs[n].port, WARM); // warm up JIT and pools
const cpu = Object.fromEntries(names.map((n) => [n, [] as number[]]));
const rps = Object.fromEntries(names.map((n) => [n, [] as number[]]));
const ratios = (of: string, base: string) => cpu[of].map((g, i) => g / cpu[base][i]);
for (let i = 0; i < ROUNDS; i++) {
  // Interleave so drift in machine load hits all alike; ratios are taken within a round. The
  // order turns by one each round: each forwarder runs in every position (first after a pause,
  // right after the gateway, …) equally often, so no position effect sides with one of them.
  const r: Record<string, { cpuUs: number; rps: number }> = {};
  for (const n of [...names.slice(i % names.length), ...names.slice(0, i % names.length)]) r[n] = await measure(procs[n]);
  for (const n of names) { cpu[n].push(r[n].cpuUs); rps[n].push(r[n].rps); }
  console.log(`round ${i + 1}: ${names.map((n) => `${n} ${r[n].cpuUs.toFixed(1)} µs`).join(', ')}; gateway/bare ${(r.gateway.cpuUs / r.bare.cpuUs).toFixed(3)}, gateway/gatewayWarn ${(r.gateway.cpuUs / r.gatewayWarn.cpuUs).toFixed(3)}`);
}
const memoryOf = (child: ChildProcess) => new Promise<number>((resolve) => {
  child.once('message', (m) => resolve((m as { rss: number }).rss / 1024 / 1024));
  child.send('memory');
});
const rss = { gateway: await memoryOf(procs.gateway.child), gatewayAll: await memoryOf(procs.gatewayAll.child) };

const LABEL: Record<string, string> = {
  bare: 'bare node:http + undici request()',
  bareAgain: 'the same bare forwarder again (A/A)',
  bareDispatch: 'bare node:http + undici dispatch()',
  bareHeaders: 'bare request() + the headers the gateway adds',
  gateway: '**the gateway, defaults (JSON access log to a drained pipe)**',
  gatewayWarn: 'the gateway, `--log-level warn` (no access lines)',
  gatewayAll: 'the gateway, defaults, `--release all` (44 programs)',
  nginx: 'nginx, 1 worker, JSON access log (buffer=32k flush=1s)',
  nginxNoLog: 'nginx, 1 worker, no access log',
};
console.log(`\nGET ${PATH}, ${PER_ROUND} requests x ${ROUNDS} rounds, concurrency ${CONCURRENCY}; CPU per request of each forwarding process (median of rounds; ratios are medians of per-round ratios)`);
console.log('| forwarder | CPU / request | req/s | vs bare |\n|---|---|---|---|');
for (const n of names) console.log(`| ${LABEL[n]} | ${median(cpu[n]).toFixed(1)} µs | ${median(rps[n]).toFixed(0)} | ${n === 'bare' ? '1.00' : median(ratios(n, 'bare')).toFixed(3)} |`);
const aa = ratios('bareAgain', 'bare');
console.log(`\ngateway (defaults)/bare: ${median(ratios('gateway', 'bare')).toFixed(3)} (target ≤ 1.10)`);
console.log(`gateway (defaults)/gateway at warn: ${median(ratios('gateway', 'gatewayWarn')).toFixed(3)} (the access log's cost; target ≤ 1.12)`);
console.log(`noise floor: the same bare forwarder twice, bareAgain/bare ${median(aa).toFixed(3)} (A/A; per-round spread ${Math.min(...aa).toFixed(2)}–${Math.max(...aa).toFixed(2)})${Math.abs(median(aa) - 1) > 0.02 ? ': this run cannot tell a few per cent apart' : ''}`);
console.log(`gateway at warn/bare dispatch(): ${median(ratios('gatewayWarn', 'bareDispatch')).toFixed(3)}; /(bare request() + the gateway's headers): ${median(ratios('gatewayWarn', 'bareHeaders')).toFixed(3)} (the gateway's stages apart from the headers it must add)`);
if (procs.nginx) console.log(`nginx with its access log/without: ${median(ratios('nginx', 'nginxNoLog')).toFixed(3)}`);
console.log(`gateway --release all/one release: ${median(ratios('gatewayAll', 'gateway')).toFixed(3)}; RSS after the run: one release ${rss.gateway.toFixed(0)} MiB, every release ${rss.gatewayAll.toFixed(0)} MiB`);
// Every request left its line: stop the gateways (SIGTERM: they exit, writing what is queued) and count what the drains read.
for (const n of ['gateway', 'gatewayAll'] as const) {
  const exited = new Promise((r) => procs[n].child.once('exit', r));
  procs[n].child.kill('SIGTERM');
  await exited;
  console.log(`${n}: the drain read ${await drains[n].lines()} lines for ${WARM + PER_ROUND * ROUNDS} requests (and a few start-up lines)`);
}
for (const p of [...Object.values(procs), upstream]) p.child.kill();
process.exit(0);
