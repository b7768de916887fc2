// Builds off the request loop (issue 12): proxied GET latency at a steady 400 req/s, alone and while
// 4 clients keep POST /unlock_fund busy, against the same gateway process in the same run. The
// builds run on the gateway's worker threads, so the proxied p99 should barely move.
//   npm run build && node dist/bench/builders-contention.js [seconds]
import { Agent } from 'undici';
import { unlockFundRequest } from '../test/builders/cardano/fixtures.js';
import { startProcess } from './proxy/processes.js';

const SECONDS = Number(process.argv[2] ?? 8);
const RATE = 400;
const BUILDERS = 4;

const upstream = await startProcess('proxy/upstream.js');
const gateway = await startProcess('proxy/gateway-forwarder.js', [`http://127.0.0.1:${upstream.port}`, '--rate-limit', 'off']);
const origin = `http://127.0.0.1:${gateway.port}`;
const agent = new Agent({ connections: 64 });
const body = JSON.stringify(unlockFundRequest());

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

/** Open loop: one GET every 1/RATE s for SECONDS, whatever the answers do; latencies in ms. */
async function steadyGets(): Promise<number[]> {
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; i < SECONDS * RATE; i++) {
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const t0 = performance.now();
    pending.push(agent.request({ origin, path: '/api/v3/ticker/price?symbol=BTCUSDT', method: 'GET' }).then(async (r) => {
      await r.body.dump();
      if (r.statusCode !== 200) throw new Error(`GET answered ${r.statusCode}`);
      latencies.push(performance.now() - t0);
    }));
  }
  await Promise.all(pending);
  return latencies;
}

/** BUILDERS clients each POSTing /unlock_fund back to back until stopped; builds done. */
function hammer(): { stop(): Promise<number> } {
  let running = true;
  let builds = 0;
  const loops = Array.from({ length: BUILDERS }, async () => {
    while (running) {
      const r = await agent.request({ origin, path: '/unlock_fund', method: 'POST', headers: { 'content-type': 'application/json' }, body });
      await r.body.dump();
      if (r.statusCode === 200) builds++;
    }
  });
  return { stop: async () => { running = false; await Promise.all(loops); return builds; } };
}

await steadyGets(); // warm up: JIT, pools, the first forward
const warm = hammer();
await new Promise((r) => setTimeout(r, 1000)); // the builder thread loads CSL and the evaluator
await warm.stop();
const alone = await steadyGets();
const busy = hammer();
const contended = await steadyGets();
const builds = await busy.stop();
await agent.close();
gateway.child.kill();
upstream.child.kill();

const p = (xs: number[]) => `p50 ${pct(xs, 0.5).toFixed(1)} ms, p99 ${pct(xs, 0.99).toFixed(1)} ms`;
console.log(`proxied GET at ${RATE} req/s for ${SECONDS} s, same gateway process (builder threads: cores − 1)`);
console.log(`alone:                          ${p(alone)}`);
console.log(`with ${BUILDERS} clients on /unlock_fund: ${p(contended)} (${builds} builds, ${(builds / SECONDS).toFixed(0)}/s)`);
const ratio = pct(contended, 0.99) / pct(alone, 0.99);
console.log(`p99 ratio: ${ratio.toFixed(2)} (target ≤ 1.5)`);
