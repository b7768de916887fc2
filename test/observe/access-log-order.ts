// The access log through an orderly stop, as a gateway process writes it with its default settings:
// `requests` requests on 8 keep-alive lanes, then SIGTERM; every line is there, JSON, in the order
// each lane's requests were answered. npm test sends 2 000 (~0.5 MB, the 32 KiB batch filled a dozen
// times over: batching, boundaries and the stop all crossed); the soak sends issue 25's 10 000.
import { Agent } from 'undici';
import * as assert from '../support/assert.js';
import { BUFFER_BYTES } from '../../src/log-buffer.js';
import { startGatewayProcess } from '../support/processes.js';

type Line = Record<string, unknown>;
export const accessLines = (text: string): Line[] => text.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Line).filter((r) => r.msg === 'access');

export async function linesThroughStop(upstreamUrl: string, requests: number): Promise<void> {
  const gw = await startGatewayProcess(['--upstream', `exchange=${upstreamUrl}`]); // default log settings: info, JSON to stderr (a pipe)
  const LANES = 8, EACH = Math.ceil(requests / LANES);
  const agent = new Agent({ connections: LANES });
  try {
    // Each lane sends its next request once the previous is answered: its lines must appear in its order.
    await Promise.all(Array.from({ length: LANES }, async (_, lane) => {
      for (let i = 0; i < EACH; i++) {
        const r = await agent.request({ origin: gw.url, path: '/api/v3/ping', method: 'GET', headers: { 'x-request-id': `lane${lane}-${i}` } });
        await r.body.dump();
      }
    }));
  } finally {
    await agent.close();
  }
  const exited = new Promise<number | null>((resolve) => gw.child.once('exit', (code) => resolve(code)));
  gw.child.kill('SIGTERM');
  assert.is(await exited, 0);
  const text = gw.output();
  const lines = text.split('\n').filter((l) => l.startsWith('{'));
  for (const l of lines) {
    try { JSON.parse(l); } catch { assert.unreachable(`a torn line, or two run together: ${l}`); }
  }
  const access = accessLines(text);
  assert.is(access.length, LANES * EACH);
  assert.ok(lines.join('\n').length > 8 * BUFFER_BYTES, 'the lines fill the write buffer many times over');
  const next = new Array<number>(LANES).fill(0);
  for (const a of access) {
    const m = /^lane(\d)-(\d+)$/.exec(String(a.reqId));
    assert.ok(m, `reqId ${String(a.reqId)}`);
    assert.is(Number(m[2]), next[Number(m[1])]++, `lane ${m[1]} out of order`);
    assert.is(a.route, '/api/v3/ping');
    assert.is(typeof a.status, 'number');
  }
  const times = access.map((a) => Date.parse(String(a.time)));
  assert.ok(times.every((t, i) => i === 0 || t >= times[i - 1]), 'times never go back');
}
