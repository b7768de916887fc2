// A pipelining flood: 4 connections each write `perConnection` pipelined GETs and never read an
// answer. The gateway (its own process, so its RSS is measured alone) may send the upstream only
// what the per-connection bound allows plus what the kernel's socket buffers took, and its RSS
// must stay bounded.
import { connect, type Socket } from 'node:net';
import * as assert from '../support/assert.js';
import { startGatewayProcess, type Upstream } from '../support/processes.js';
import { rssMiB } from '../support/rss.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function open(url: string): Promise<Socket> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), '127.0.0.1', () => resolve(s));
    s.on('error', reject);
  });
}

export async function pipeliningFlood(upstream: Upstream, perConnection: number, settleMs: number): Promise<void> {
  const gw = await startGatewayProcess(['--release', '3.12.0', '--upstream', `exchange=${upstream.url}`, '--log-level', 'warn', '--max-pipelined', '16']);
  try {
    await fetch(`${gw.url}/api/v3/ping`); // warm up
    await upstream.reset();
    const before = rssMiB(gw.child.pid!);
    const flood = Buffer.from('GET /api/v3/ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'.repeat(perConnection));
    const sockets = await Promise.all([0, 1, 2, 3].map(() => open(gw.url)));
    for (const s of sockets) {
      s.pause(); // never read an answer
      s.write(flood);
    }
    await sleep(settleMs);
    const sent = (await upstream.records()).length;
    const after = rssMiB(gw.child.pid!);
    for (const s of sockets) s.destroy();
    console.log(`    flood: upstream received ${sent} of ${4 * perConnection} pipelined requests; gateway RSS ${before.toFixed(0)} → ${after.toFixed(0)} MiB`);
    // The bound per connection plus the answers the kernel's socket buffers took before the gateway
    // saw the client was not reading (a few hundred KiB each).
    assert.ok(sent < 4 * 16 + 4 * 2500, `upstream received ${sent} of ${4 * perConnection} pipelined requests`);
    assert.ok(after - before < 150, `gateway RSS grew ${(after - before).toFixed(0)} MiB`);
    const ok = await fetch(`${gw.url}/api/v3/ping`);
    assert.is(ok.status, 200);
  } finally {
    await gw.stop();
  }
}
