// An open-loop load generator in its own process: told over IPC { origin, path, rate, seconds },
// it sends one GET every 1/rate s whatever the answers do, and answers { latencies, lateness } in
// ms. Latency runs from the send to the last byte of the answer. It runs apart from any other client
// of the bench so that their work cannot delay its timers or its reading of answers (that would
// measure the bench, not the gateway); `lateness` (send time − due time) shows whether it kept time.
import { Agent } from 'undici';

export interface SteadyLoad { origin: string; path: string; rate: number; seconds: number }
export interface SteadyResult { latencies: number[]; lateness: number[]; failed: number }

const agent = new Agent({ connections: 64, keepAliveTimeout: 60_000 });

async function run({ origin, path, rate, seconds }: SteadyLoad): Promise<SteadyResult> {
  const latencies: number[] = [];
  const lateness: number[] = [];
  const pending: Promise<void>[] = [];
  let failed = 0;
  const send = (due: number) => {
    const t0 = performance.now();
    lateness.push(t0 - due);
    pending.push(agent.request({ origin, path, method: 'GET' }).then(async (r) => {
      await r.body.dump();
      if (r.statusCode === 200) latencies.push(performance.now() - t0);
      else failed++;
    }, () => { failed++; }));
  };
  const total = Math.round(rate * seconds);
  const start = performance.now();
  let i = 0;
  // setTimeout wakes late by up to a millisecond or so: every request already due goes out on each
  // wake-up, so the rate holds and no request is skipped.
  while (i < total) {
    const now = performance.now();
    while (i < total && start + (i * 1000) / rate <= now) send(start + (i++ * 1000) / rate);
    if (i < total) await new Promise((r) => setTimeout(r, Math.max(0, start + (i * 1000) / rate - performance.now())));
  }
  await Promise.all(pending);
  return { latencies, lateness, failed };
}

process.on('message', (m) => {
  void run(m as SteadyLoad).then((result) => process.send!(result));
});
process.send!('ready');
