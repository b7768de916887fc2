// Stopping a replica behind nginx under load: how many requests fail with --accept-grace 0 (the
// listener closes at SIGTERM) against --accept-grace <ms> (hand over first), in one run. Two gateways
// behind Debian's nginx (round-robin, max_fails=3 fail_timeout=1s, idempotent requests retried), 12
// clients sending GETs and signed POST orders half and half, as fast as they are answered; each
// round restarts one gateway, the two alternately.
//   npm run build && node dist/bench/stop-behind-nginx.js [restarts-per-setting] [accept-grace-ms]
import { createHmac } from 'node:crypto';
import { freePort, startNginx, type Nginx } from '../test/support/nginx.js';
import { ROOT, startProcess, startUpstream, type Proc } from '../test/support/processes.js';

const RESTARTS = Number(process.argv[2] ?? 10);
const GRACE = process.argv[3] ?? '2000';
const KEY = 'bench-key';
const SECRET = 'bench-secret-0123456789';

const upstream = await startUpstream({ [KEY]: { hmac: SECRET } });
const ports = [await freePort(), await freePort()];

function start(port: number, grace: string): Promise<Proc> {
  // --rate-limit off: the exchange's order limits would refuse most of this load with 429s.
  return startProcess(`${ROOT}dist/src/cli.cjs`, ['--port', String(port), '--release', '3.12.0', '--upstream', `exchange=${upstream.url}`,
    '--accept-grace', grace, '--rate-limit', 'off', '--log-level', 'error'], /listening on (http:\/\/\S+)/, { GATEWAY_BUILDER_PRIORITY: 'normal' }, 20_000);
}

async function run(grace: string, nginx: Nginx, replicas: Proc[]): Promise<{ sent: number; failed: string[]; stopMs: number[] }> {
  let running = true;
  let sent = 0;
  const failed: string[] = [];
  const clients = Array.from({ length: 12 }, async (_, c) => {
    for (let i = 0; running; i++) {
      const post = Math.random() < 0.5;
      const q = `symbol=BTCUSDT&side=BUY&type=MARKET&quantity=1&newClientOrderId=b${c}-${i}&timestamp=${Date.now()}`;
      const path = post ? `/api/v3/order?${q}&signature=${createHmac('sha256', SECRET).update(q).digest('hex')}` : '/api/v3/ping';
      try {
        const res = await fetch(nginx.url + path, { method: post ? 'POST' : 'GET', headers: { 'x-test-used-weight': '1', 'x-mbx-apikey': KEY } });
        await res.arrayBuffer();
        if (res.status !== 200) failed.push(`${post ? 'POST' : 'GET'} ${res.status}`);
      } catch (e) {
        failed.push((e as Error).message);
      }
      sent++;
    }
  });
  const stopMs: number[] = [];
  for (let r = 0; r < RESTARTS; r++) {
    const i = r % 2;
    await new Promise((res) => setTimeout(res, 1500));
    const t0 = performance.now();
    await replicas[i]!.stop();
    stopMs.push(performance.now() - t0);
    replicas[i] = await start(ports[i]!, grace);
    await new Promise((res) => setTimeout(res, 1200)); // past nginx's fail_timeout: the restarted one is back in
  }
  running = false;
  await Promise.all(clients);
  return { sent, failed, stopMs };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const grace of ['0', GRACE]) {
  const replicas = [await start(ports[0]!, grace), await start(ports[1]!, grace)];
  const nginx = await startNginx(ports);
  const { sent, failed, stopMs } = await run(grace, nginx, replicas);
  const kinds = [...new Set(failed)].map((k) => `${failed.filter((f) => f === k).length}× ${k}`).join(', ');
  console.log(`--accept-grace ${grace}: ${RESTARTS} restarts, ${sent} requests, ${failed.length} failed${kinds ? ` (${kinds})` : ''}; stop took median ${median(stopMs).toFixed(0)} ms, max ${Math.max(...stopMs).toFixed(0)} ms`);
  await nginx.stop();
  await Promise.all(replicas.map((p) => p.stop()));
}
await upstream.stop();
