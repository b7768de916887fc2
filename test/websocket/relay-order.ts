// The relay's ordering check, shared by the fast test (1 s, `npm test`) and the 10 s soak
// (`npm run test:soak`): `total` frames each way at `perSecond`, none lost or reordered, bytes identical.
import * as assert from '../support/assert.js';
import type { RunningGateway } from '../../src/server.js';
import { closed, open, sleep, wsUrl, type WsUpstream } from './ws-upstream.js';

/** Send `total` frames at `perSecond`, paced on a 10 ms tick; resolves when all are sent. */
function paced(total: number, perSecond: number, send: (seq: number) => void): Promise<void> {
  return new Promise((resolve) => {
    const started = performance.now();
    let seq = 0;
    const tick = setInterval(() => {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * perSecond));
      while (seq < due) send(seq++);
      if (seq >= total) { clearInterval(tick); resolve(); }
    }, 10);
  });
}

const frame = (dir: string, seq: number) => `{"e":"${dir}","seq":${seq},"T":${Date.now()},"p":"${'x'.repeat(seq % 97)}"}`;

/** Relay `total` frames each way at `perSecond` through `gw` and assert all arrive in order, byte-identical. */
export async function relayInOrder(gw: RunningGateway, upstream: WsUpstream, total: number, perSecond: number): Promise<void> {
  const N = total;
  const c = await open(`${wsUrl(gw)}/ws/btcusdt@trade`);
  const conn = await upstream.nextConnection();
  const down: Array<{ text: string; at: number }> = [];
  c.ws.on('message', (d, isBinary) => { if (!isBinary) down.push({ text: (d as Buffer).toString(), at: Date.now() }); });
  const sentDown: string[] = [], sentUp: string[] = [];
  const started = Date.now();
  await Promise.all([
    paced(N, perSecond, (i) => { const f = frame('down', i); sentDown.push(f); conn.ws.send(f); }),
    paced(N, perSecond, (i) => { const f = frame('up', i); sentUp.push(f); c.ws.send(f); }),
  ]);
  const deadline = Date.now() + 5000;
  while ((down.length < N || conn.received.length < N) && Date.now() < deadline) await sleep(20);
  const secs = (Date.now() - started) / 1000;
  assert.is(down.length, N, 'upstream → client count');
  assert.is(conn.received.length, N, 'client → upstream count');
  for (let i = 0; i < N; i++) {
    if (down[i].text !== sentDown[i]) assert.unreachable(`down frame ${i} differs or is out of order: ${down[i].text.slice(0, 60)}`);
    const up = conn.received[i];
    if (up.isBinary || up.data.toString() !== sentUp[i]) assert.unreachable(`up frame ${i} differs or is out of order`);
  }
  const lat = down.map((d) => d.at - Number(/"T":(\d+)/.exec(d.text)![1])).sort((a, b) => a - b);
  console.log(`    relayed ${N} + ${N} frames in ${secs.toFixed(1)} s; downstream latency p50 ${lat[N >> 1]} ms, p99 ${lat[Math.floor(N * 0.99)]} ms, max ${lat[N - 1]} ms`);
  c.ws.close();
  await closed(c.ws);
}
