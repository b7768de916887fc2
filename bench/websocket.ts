// Websocket relay cost: frames/s and gateway CPU time per relayed frame, upstream → client, with the
// upstream, the gateway and the client (this process) each in their own process.
//   npm run build && node dist/bench/websocket.js [frames-per-round] [rounds] [frame-bytes]
// Roles (internal): `upstream` (pushes frames on request), `gateway <upstream-url>`.
import { fork, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import WebSocket, { WebSocketServer } from 'ws';

const [role, arg] = process.argv.slice(2);
const cpu = () => { const u = process.cpuUsage(); return u.user + u.system; };
process.on('message', (m) => { if (m === 'cpu') process.send!({ cpu: cpu() }); });

if (role === 'upstream') {
  // Each connection: the first text frame "<n> <bytes>" asks for n frames of that size, sent as fast as the socket takes them.
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  wss.on('connection', (ws) => {
    ws.on('message', (d) => {
      const [n, bytes] = d.toString().split(' ').map(Number);
      const frame = `{"e":"trade","p":"${'x'.repeat(Math.max(0, bytes - 20))}"}`;
      let sent = 0;
      const pump = () => {
        while (sent < n && ws.bufferedAmount < 1024 * 1024) { ws.send(frame); sent++; }
        if (sent < n) setImmediate(pump);
      };
      pump();
    });
  });
  wss.once('listening', () => console.log(`port ${(wss.address() as AddressInfo).port}`));
} else if (role === 'gateway') {
  const { readConfig } = await import('../src/config.js');
  const { startGateway } = await import('../src/server.js');
  const { createLogger } = await import('../src/log.js');
  const gw = await startGateway(readConfig(['--port', '0', '--upstream', 'exchange=http://127.0.0.1:9', '--upstream', `exchange.streams=${arg}`], {}), { logger: createLogger('warn') });
  console.log(`port ${new URL(gw.url).port}`);
} else {
  const PER_ROUND = Number(process.argv[2] ?? 200_000);
  const ROUNDS = Number(process.argv[3] ?? 5);
  const BYTES = Number(process.argv[4] ?? 200);
  const here = fileURLToPath(import.meta.url);
  const start = (args: string[]) => new Promise<{ child: ChildProcess; port: number }>((resolve, reject) => {
    const child = fork(here, args, { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    child.stdout!.on('data', (d: Buffer) => { const m = /port (\d+)/.exec(d.toString()); if (m) resolve({ child, port: Number(m[1]) }); });
    child.once('exit', (c) => reject(new Error(`${args[0]} exited ${c}`)));
  });
  const cpuOf = (child: ChildProcess) => new Promise<number>((resolve) => {
    child.once('message', (m) => resolve((m as { cpu: number }).cpu));
    child.send('cpu');
  });
  /** Receive n frames over a fresh connection; ms taken. */
  const receive = (url: string, n: number) => new Promise<number>((resolve, reject) => {
    const ws = new WebSocket(url);
    let got = 0, started = 0;
    ws.on('open', () => { started = performance.now(); ws.send(`${n} ${BYTES}`); });
    ws.on('message', () => { if (++got === n) { const ms = performance.now() - started; ws.close(); resolve(ms); } });
    ws.on('error', reject);
  });
  const upstream = await start(['upstream']);
  const gateway = await start(['gateway', `ws://127.0.0.1:${upstream.port}`]);
  const direct = `ws://127.0.0.1:${upstream.port}/ws/btcusdt@trade`;
  const relayed = `ws://127.0.0.1:${gateway.port}/ws/btcusdt@trade`;
  await receive(direct, 20_000); // warm up
  await receive(relayed, 20_000);
  const rows: Array<{ direct: number; relayed: number; cpuUs: number }> = [];
  for (let r = 0; r < ROUNDS; r++) {
    const d = await receive(direct, PER_ROUND);
    const before = await cpuOf(gateway.child);
    const g = await receive(relayed, PER_ROUND);
    const after = await cpuOf(gateway.child);
    rows.push({ direct: PER_ROUND / (d / 1000), relayed: PER_ROUND / (g / 1000), cpuUs: (after - before) / PER_ROUND });
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`websocket relay, ${PER_ROUND} frames of ~${BYTES} B per round, ${ROUNDS} rounds (median):`);
  console.log(`  direct   ${median(rows.map((x) => x.direct)).toFixed(0)} frames/s`);
  console.log(`  gateway  ${median(rows.map((x) => x.relayed)).toFixed(0)} frames/s, ${median(rows.map((x) => x.cpuUs)).toFixed(2)} µs gateway CPU per frame`);
  upstream.child.kill();
  gateway.child.kill();
}
