// The load the proxy benches put on a forwarder process, and the CPU it reports (./cpu.ts):
// CONCURRENCY keep-alive connections sending one GET after another from this process.
import type { ChildProcess } from 'node:child_process';
import { Agent } from 'undici';

export const CONCURRENCY = 16;
export const PATH = process.env.BENCH_PATH ?? '/api/v3/klines?symbol=BTCUSDT&interval=1m&limit=10';

/** CPU time (user + system, µs) the forwarder process has used so far. */
export const cpuOf = (child: ChildProcess) => new Promise<number>((resolve) => {
  child.once('message', (m) => resolve((m as { cpu: number }).cpu));
  child.send('cpu');
});

/** Send `n` GETs of PATH to 127.0.0.1:`port` over `concurrency` connections; resolves to the wall time in ms. Throws unless every answer is 200. */
export async function drive(port: number, n: number, latencies?: number[], concurrency = CONCURRENCY, path = PATH): Promise<number> {
  const agent = new Agent({ connections: concurrency, keepAliveTimeout: 30_000 });
  let sent = 0, bad = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (sent < n) {
      sent++;
      const t = performance.now();
      const r = await agent.request({ origin: `http://127.0.0.1:${port}`, path, method: 'GET' });
      await r.body.dump();
      latencies?.push(performance.now() - t);
      if (r.statusCode !== 200) bad++;
    }
  }));
  await agent.close();
  if (bad) throw new Error(`${bad} answers were not 200`);
  return performance.now() - started;
}

/** A forwarder to measure: a forked node process (its CPU asked over IPC) or one that reads its own (`cpu`, µs: nginx). */
export type Forwarder = { port: number } & ({ child: ChildProcess } | { cpu: () => Promise<number> });

/** CPU per request (µs) of the forwarder `f` over `n` requests, and its requests per second. */
export async function measure(f: Forwarder, n: number, latencies?: number[], path = PATH): Promise<{ cpuUs: number; rps: number }> {
  const cpu = 'cpu' in f ? f.cpu : () => cpuOf(f.child);
  const before = await cpu();
  const ms = await drive(f.port, n, latencies, CONCURRENCY, path);
  const after = await cpu();
  return { cpuUs: (after - before) / n, rps: n / (ms / 1000) };
}
