// Drift under a flood of random unknown paths (test/gateway/drift.test.ts at 10 000 requests,
// test/soak/drift-flood.soak.ts at 100 000): whatever clients send, GET /_gateway/drift and the
// metrics stay bounded, list at most the table's entries, count the rest as overflow, keep no
// query string, and answer quickly.
import { connect } from 'node:net';
import * as assert from '../support/assert.js';
import { startGatewayProcess } from '../support/processes.js';
import { timed } from '../support/timing.js';
import type { DriftReport } from '../../src/gateway/drift/drift.js';
import { DRIFT_MAX_ENTRIES, DRIFT_MAX_NAME } from '../../src/gateway/drift/drift.js';

const MiB = 1024 * 1024;
/** A secret-looking query value: it must never reach the drift table. */
export const SECRET_VALUE = 'sEcReT0123456789drift';

/** The path of the i-th unknown request: some long (clipped), some under another service's prefix, some with a query holding a "secret". */
function unknownPath(i: number): string {
  const tail = i % 97 === 0 ? 'x'.repeat(2000) : Math.random().toString(36).slice(2);
  return `/${i % 3 === 0 ? 'sapi/v1' : 'api/v3'}/drift-${i.toString(36)}-${tail}${i % 5 === 0 ? `?signature=${SECRET_VALUE}&apiKey=${SECRET_VALUE}` : ''}`;
}

/**
 * `n` GETs of distinct random unknown paths, pipelined on 4 keep-alive connections: each connection's
 * requests written at once (the gateway takes --max-pipelined of them at a time), the answers only
 * counted (status lines), so the client costs next to nothing beside the gateway.
 */
export async function sendUnknown(base: string, n: number): Promise<void> {
  const port = Number(new URL(base).port);
  const per = Math.ceil(n / 4);
  const statuses = await Promise.all([0, 1, 2, 3].map((c) => {
    const from = c * per;
    const count = Math.max(0, Math.min(per, n - from));
    return new Promise<{ answered: number; not404: number }>((resolve, reject) => {
      if (!count) return resolve({ answered: 0, not404: 0 });
      const socket = connect(port, '127.0.0.1');
      let carry = '';
      let answered = 0;
      let not404 = 0;
      socket.on('data', (d: Buffer) => {
        const text = carry + d.toString('latin1');
        let i = text.indexOf('HTTP/1.1 ');
        while (i >= 0 && i + 12 <= text.length) {
          answered++;
          if (text.slice(i + 9, i + 12) !== '404') not404++;
          i = text.indexOf('HTTP/1.1 ', i + 9);
        }
        carry = i >= 0 ? text.slice(i) : text.slice(-11); // an unfinished status line waits for the next chunk
        if (answered >= count) {
          socket.destroy();
          resolve({ answered, not404 });
        }
      });
      socket.on('error', reject);
      socket.on('close', () => resolve({ answered, not404 }));
      const requests: string[] = [];
      for (let i = from; i < from + count; i++) requests.push(`GET ${unknownPath(i)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      socket.write(requests.join(''));
    });
  }));
  assert.is(statuses.reduce((s, x) => s + x.answered, 0), n, 'every request is answered');
  assert.is(statuses.reduce((s, x) => s + x.not404, 0), 0, 'every random unknown path is answered 404');
}

/**
 * The flood against a gateway process of its own (with V8's optimizing compiler: test files run
 * without it, and the flood should cost the gateway what it costs in production), then the bounds
 * of /_gateway/drift and /_gateway/metrics.
 */
export async function floodUnknown(upstream: string, n: number): Promise<void> {
  const gw = await startGatewayProcess(['--release', '3.12.0', '--upstream', `exchange=${upstream}`, '--log-level', 'error'], {}, []);
  try {
    await floodAndCheck(gw.url, n);
  } finally {
    await gw.stop();
  }
}

async function floodAndCheck(base: string, n: number): Promise<void> {
  const before = (await (await fetch(`${base}/_gateway/drift`)).json()) as DriftReport;
  const sent = await timed(() => sendUnknown(base, n));
  // Reference: the health probe, answered at once on plain node:http, asked just before.
  const reference = await timed(async () => (await fetch(`${base}/_gateway/health`)).text());
  const drift = await timed(async () => (await fetch(`${base}/_gateway/drift`)).text());
  const metrics = await (await fetch(`${base}/_gateway/metrics`)).text();
  console.log(`    drift: ${n} unknown paths sent in ${sent.ms.toFixed(0)} ms; /_gateway/drift ${(drift.value.length / 1024).toFixed(0)} KiB in ${drift.ms.toFixed(1)} ms (health ${reference.ms.toFixed(1)} ms); metrics ${(metrics.length / 1024).toFixed(0)} KiB`);
  const report = JSON.parse(drift.value) as DriftReport;
  assert.ok(drift.value.length <= MiB, `/_gateway/drift is ${drift.value.length} bytes`);
  assert.ok(metrics.length <= MiB, `/_gateway/metrics is ${metrics.length} bytes`);
  assert.ok(drift.ms <= 100 + reference.ms, `/_gateway/drift answered in ${drift.ms.toFixed(1)} ms (health: ${reference.ms.toFixed(1)} ms)`);
  const u = report.unknownOperations;
  assert.is(u.entries.length, DRIFT_MAX_ENTRIES);
  assert.is(u.total, before.unknownOperations.total + n);
  assert.is(u.total, u.overflow + u.entries.reduce((sum, e) => sum + e.count, 0), 'every call is listed or counted as overflow');
  assert.ok(u.entries.every((e) => e.operation.length <= DRIFT_MAX_NAME + 'GET '.length + 1), 'paths are clipped');
  assert.not.ok(drift.value.includes(SECRET_VALUE), 'no query string is kept');
  assert.not.ok(drift.value.includes('?'), 'no query string is kept');
  assert.match(metrics, new RegExp(`^gateway_drift_total\\{kind="unknown_operation"\\} ${u.total}$`, 'm'));
  assert.match(metrics, new RegExp(`^gateway_drift_overflow_total\\{kind="unknown_operation"\\} ${u.overflow}$`, 'm'));
  assert.not.ok(metrics.includes('drift-'), 'no path is a label');
}
