// A/B for the proxy's CPU per request: this build's gateway (A) against the gateway of another
// built checkout (B: a copy with one change, e.g. a stage removed to see what it costs), and the
// bare node:http + undici request() forwarder, interleaved round by round in one run; the order
// within a round alternates so drift in machine load hits all three alike. B may be this checkout
// with environment variables of its own (BENCH_B_ENV='NAME=value NAME=value', e.g. an allocator setting).
//   npm run build && node dist/bench/proxy-ab.js <other checkout, built> [requests-per-round] [rounds]
import { join, resolve } from 'node:path';
import { measure, PATH } from './proxy/drive.js';
import { startProcess } from './proxy/processes.js';

const other = process.argv[2];
if (!other) {
  console.error('usage: node dist/bench/proxy-ab.js <other checkout, built> [requests-per-round] [rounds]');
  process.exit(2);
}
const PER_ROUND = Number(process.argv[3] ?? 20_000);
const ROUNDS = Number(process.argv[4] ?? 9);

const bEnv = Object.fromEntries((process.env.BENCH_B_ENV ?? '').split(/\s+/).filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const upstream = await startProcess('proxy/upstream.js');
const upstreamUrl = `http://127.0.0.1:${upstream.port}`;
const procs = {
  bare: await startProcess('proxy/bare-forwarder.js', [upstreamUrl]),
  A: await startProcess('proxy/gateway-forwarder.js', [upstreamUrl, '--rate-limit', 'off', '--log-level', 'error']),
  B: await startProcess(join(resolve(other), 'dist/bench/proxy/gateway-forwarder.js'), [upstreamUrl, '--rate-limit', 'off', '--log-level', 'error'], [], 'inherit', bEnv),
};
type Name = keyof typeof procs;
for (const p of Object.values(procs)) await measure(p, 3000); // warm up JIT and pools
const ratios = { A: [] as number[], B: [] as number[], BA: [] as number[] };
for (let i = 0; i < ROUNDS; i++) {
  const us = {} as Record<Name, number>;
  for (const n of (i % 2 ? ['bare', 'A', 'B'] : ['B', 'A', 'bare']) as Name[]) us[n] = (await measure(procs[n], PER_ROUND)).cpuUs;
  ratios.A.push(us.A / us.bare);
  ratios.B.push(us.B / us.bare);
  ratios.BA.push(us.B / us.A);
  console.log(`round ${i + 1}: bare ${us.bare.toFixed(1)} µs, A ${us.A.toFixed(1)} µs, B ${us.B.toFixed(1)} µs; A/bare ${(us.A / us.bare).toFixed(3)}, B/bare ${(us.B / us.bare).toFixed(3)}, B/A ${(us.B / us.A).toFixed(3)}`);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`\nGET ${PATH}, ${PER_ROUND} requests x ${ROUNDS} rounds; medians of per-round ratios:`);
console.log(`A (this build)/bare ${median(ratios.A).toFixed(3)}, B (${other})/bare ${median(ratios.B).toFixed(3)}, B/A ${median(ratios.BA).toFixed(3)}`);
process.exit(0);
