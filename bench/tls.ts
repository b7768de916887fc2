// The CPU of TLS at the gateway against nginx terminating TLS in front of the plain gateway, per
// request, in one run. A: the gateway with --tls-cert/--tls-key. B: nginx (Debian's, one worker, the
// same P-256 certificate, TLS 1.3, a keep-alive pool to the gateway) in front of the gateway listening
// plain. The same load against each, alternated round by round: 16 keep-alive https connections
// sending GET /api/v3/ping one after another, plus one new connection (a full handshake) every
// `HANDSHAKE_EVERY` requests. CPU is every thread's time on a CPU (/proc/<pid>/task/*/schedstat) of
// the gateway process, plus nginx's master and worker for B. The upstream stand-in runs in this process.
//   npm run build && node dist/bench/tls.js [rounds] [requests-per-round]
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Agent } from 'undici';
import { certificateAuthority } from '../test/support/certificates.js';
import { freePort, nginxPreamble } from '../test/support/nginx.js';
import { ROOT, startProcess, startUpstream, type Proc } from '../test/support/processes.js';
import { tempDir } from '../test/support/temp.js';

const ROUNDS = Number(process.argv[2] ?? 5);
const N = Number(process.argv[3] ?? 6000);
const CONCURRENCY = 16;
const HANDSHAKE_EVERY = 100;

const dir = tempDir('bench-tls-');
const ca = certificateAuthority('ca', '/CN=Bench CA', dir);
const cert = ca.issue('gateway', '/CN=localhost', true);
const trust = readFileSync(ca.cert);
const upstream = await startUpstream();

const gateway = (args: string[]): Promise<Proc & { match: RegExpMatchArray }> => startProcess(`${ROOT}dist/src/cli.cjs`,
  ['--port', '0', '--upstream', `exchange=${upstream.url}`, '--log-level', 'error', '--rate-limit', 'off', '--accept-grace', '0', ...args],
  /listening on (https?:\/\/\S+)/, { GATEWAY_BUILDER_PRIORITY: 'normal' }, 30_000, []); // as users run it: no test-only V8 flags

/** ns every thread of `pid` has run on a CPU. */
function cpuNs(pid: number): number {
  let ns = 0;
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try { ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]); } catch { /* a thread that ended */ }
  }
  return ns;
}

async function startNginx(gatewayPort: number): Promise<{ port: number; pids: () => number[]; stop(): void }> {
  const port = await freePort();
  writeFileSync(join(dir, 'nginx.conf'), `${nginxPreamble(dir)}
  upstream gateway { server 127.0.0.1:${gatewayPort}; keepalive 64; }
  server {
    listen 127.0.0.1:${port} ssl;
    ssl_certificate ${cert.cert};
    ssl_certificate_key ${cert.key};
    ssl_protocols TLSv1.2 TLSv1.3;
    keepalive_requests 1000000;
    location / { proxy_pass http://gateway; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
`);
  const child = spawn('/usr/sbin/nginx', ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'inherit'] });
  await new Promise((r) => setTimeout(r, 500));
  if (child.exitCode !== null) throw new Error(`nginx did not start: ${readFileSync(join(dir, 'error.log'), 'utf8')}`);
  const pids = () => [child.pid!, ...readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)];
  return { port, pids, stop: () => child.kill('SIGQUIT') };
}

/** N GETs over CONCURRENCY keep-alive connections, a new connection every HANDSHAKE_EVERY requests. */
async function drive(port: number): Promise<void> {
  let sent = 0, bad = 0;
  let agent = new Agent({ connections: CONCURRENCY, connect: { ca: trust, servername: 'localhost' } });
  const old: Agent[] = [];
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (sent < N) {
      if (++sent % (HANDSHAKE_EVERY * CONCURRENCY) === 0) { old.push(agent); agent = new Agent({ connections: CONCURRENCY, connect: { ca: trust, servername: 'localhost' } }); }
      const r = await agent.request({ origin: `https://localhost:${port}`, path: '/api/v3/ping', method: 'GET' });
      await r.body.dump();
      if (r.statusCode !== 200) bad++;
    }
  }));
  await Promise.all([agent, ...old].map((a) => a.close()));
  if (bad) throw new Error(`${bad} answers were not 200`);
}

async function cpuPerRequest(port: number, pids: () => number[]): Promise<number> {
  await drive(port); // warm: JIT, sessions, pools
  const before = pids().reduce((s, p) => s + cpuNs(p), 0);
  await drive(port);
  return (pids().reduce((s, p) => s + cpuNs(p), 0) - before) / N / 1000;
}

const tlsGateway = await gateway(['--tls-cert', cert.cert, '--tls-key', cert.key]);
const plainGateway = await gateway([]);
const nginx = await startNginx(Number(new URL(plainGateway.match[1]).port));
const rows: { a: number; b: number }[] = [];
try {
  for (let r = 0; r < ROUNDS; r++) {
    const a = await cpuPerRequest(Number(new URL(tlsGateway.match[1]).port), () => [tlsGateway.child.pid!]);
    const b = await cpuPerRequest(nginx.port, () => [plainGateway.child.pid!, ...nginx.pids()]);
    rows.push({ a, b });
    console.log(`round ${r + 1}: TLS at the gateway ${a.toFixed(1)} µs/request, nginx TLS + plain gateway ${b.toFixed(1)} µs/request, ratio ${(a / b).toFixed(3)}`);
  }
} finally {
  nginx.stop();
  await tlsGateway.stop();
  await plainGateway.stop();
  await upstream.stop();
}
const sorted = (xs: number[]) => [...xs].sort((x, y) => x - y);
const median = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)]!;
const ratios = rows.map((x) => x.a / x.b);
console.log(`${new Date().toISOString().slice(0, 10)}, ${ROUNDS} rounds of ${N} requests (${CONCURRENCY} keep-alive connections, a new one every ${HANDSHAKE_EVERY} requests each):`);
console.log(`  TLS at the gateway: median ${median(rows.map((x) => x.a)).toFixed(1)} µs CPU/request; nginx terminating TLS + plain gateway: median ${median(rows.map((x) => x.b)).toFixed(1)} µs`);
console.log(`  ratio gateway/nginx-in-front: median ${median(ratios).toFixed(3)}, spread ${sorted(ratios)[0]!.toFixed(3)}–${sorted(ratios).at(-1)!.toFixed(3)}`);
process.exit(0);
