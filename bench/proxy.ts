// Proxy cost: CPU time per proxied request of the gateway versus a bare node:http + undici
// forwarder, both in their own process, in the same run, against the same local upstream.
// The load generator (this process) is the same for both, so its cost cancels out of the ratio.
//   npm run build && node dist/bench/proxy.js [requests-per-round] [rounds]
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Agent } from 'undici';

const PER_ROUND = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 5);
const CONCURRENCY = 16;
const PATH = process.env.BENCH_PATH ?? '/api/v3/klines?symbol=BTCUSDT&interval=1m&limit=10';
const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));

function start(script: string, args: string[] = []): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(here(script), args, { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      const m = /port (\d+)/.exec(d.toString());
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.once('exit', (c) => reject(new Error(`${script} exited ${c}`)));
  });
}

const cpuOf = (child: ChildProcess) => new Promise<number>((resolve) => {
  child.once('message', (m) => resolve((m as { cpu: number }).cpu));
  child.send('cpu');
});

async function drive(port: number, n: number): Promise<number> {
  const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 30_000 });
  let sent = 0, bad = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (sent < n) {
      sent++;
      const r = await agent.request({ origin: `http://127.0.0.1:${port}`, path: PATH, method: 'GET' });
      await r.body.dump();
      if (r.statusCode !== 200) bad++;
    }
  }));
  await agent.close();
  if (bad) throw new Error(`${bad} answers were not 200`);
  return performance.now() - started;
}

async function measure(f: { child: ChildProcess; port: number }): Promise<{ cpuUs: number; rps: number }> {
  const before = await cpuOf(f.child);
  const ms = await drive(f.port, PER_ROUND);
  const after = await cpuOf(f.child);
  return { cpuUs: (after - before) / PER_ROUND, rps: PER_ROUND / (ms / 1000) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const upstream = await start('proxy/upstream.js');
const upstreamUrl = `http://127.0.0.1:${upstream.port}`;
const bare = await start('proxy/bare-forwarder.js', [upstreamUrl]);
const gateway = await start('proxy/gateway-forwarder.js', [upstreamUrl]);
await drive(bare.port, 3000); // warm up JIT and pools
await drive(gateway.port, 3000);
const results = { bare: [] as number[], gateway: [] as number[], bareRps: [] as number[], gatewayRps: [] as number[] };
for (let i = 0; i < ROUNDS; i++) {
  // Interleave so drift in machine load hits both alike.
  const b = await measure(bare);
  const g = await measure(gateway);
  results.bare.push(b.cpuUs); results.bareRps.push(b.rps);
  results.gateway.push(g.cpuUs); results.gatewayRps.push(g.rps);
  console.log(`round ${i + 1}: bare ${b.cpuUs.toFixed(1)} µs/req (${b.rps.toFixed(0)} req/s), gateway ${g.cpuUs.toFixed(1)} µs/req (${g.rps.toFixed(0)} req/s), ratio ${(g.cpuUs / b.cpuUs).toFixed(3)}`);
}
const mb = median(results.bare), mg = median(results.gateway);
console.log(`\nGET ${PATH}, ${PER_ROUND} requests x ${ROUNDS} rounds, concurrency ${CONCURRENCY}`);
console.log(`bare node:http + undici forwarder: ${mb.toFixed(1)} µs CPU/request (median), ${median(results.bareRps).toFixed(0)} req/s`);
console.log(`gateway (route, lifecycle, validation, proxy): ${mg.toFixed(1)} µs CPU/request (median), ${median(results.gatewayRps).toFixed(0)} req/s`);
console.log(`ratio gateway/bare: ${(mg / mb).toFixed(3)}`);
for (const p of [bare, gateway, upstream]) p.child.kill();
