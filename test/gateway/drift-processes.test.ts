// Drift in gateway processes of their own: 10 000 requests to random unknown paths leave
// GET /_gateway/drift and the metrics bounded (test/soak/drift-flood.soak.ts sends 100 000), and
// under --workers whichever worker answers GET /_gateway/drift shows every worker's tables.
// Apart from drift.test.ts so that the two run side by side.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import type { DriftReport } from '../../src/gateway/drift/drift.js';
import { startGatewayProcess, startUpstream, type Upstream } from '../support/processes.js';
import { floodUnknown } from './drift-flood.js';

const test = suite('drift in gateway processes');
let upstream: Upstream;
test.before(async () => { upstream = await startUpstream(); });
test.after(async () => { await upstream.stop(); });

test('under --workers 2, GET /_gateway/drift answers the merge of every worker\'s tables', async () => {
  const g = await startGatewayProcess(['--workers', '2', '--release', '3.12.0', '--upstream', `exchange=${upstream.url}`, '--log-level', 'error']);
  try {
    // Separate connections, so the kernel hands them to either worker.
    await Promise.all(Array.from({ length: 30 }, async () => {
      const r = await fetch(`${g.url}/api/v3/workersProbe`, { headers: { connection: 'close' } });
      await r.text();
    }));
    for (let i = 0; i < 3; i++) { // whichever worker answers
      const r = (await (await fetch(`${g.url}/_gateway/drift`, { headers: { connection: 'close' } })).json()) as DriftReport;
      assert.equal(r.workers, { answered: 2, of: 2 });
      assert.is(r.unknownOperations.entries.find((e) => e.operation === 'GET /api/v3/workersProbe')?.count, 30);
    }
  } finally {
    await g.stop();
  }
});

test('10 000 requests to random unknown paths: /_gateway/drift and the metrics stay bounded (≤ 1 MiB, ≤ 256 entries, the rest overflow) and drift answers quickly', async () => {
  await floodUnknown(upstream.url, 10_000);
});

test.run();
