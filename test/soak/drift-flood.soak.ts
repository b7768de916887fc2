// Drift's bounds at full size: 100 000 requests to random unknown paths (test/gateway/drift.test.ts
// sends 10 000): /_gateway/drift and the metrics stay under 1 MiB, list at most the table's entries
// with the rest counted as overflow, and drift answers within 100 ms of the health probe.
import { suite } from '../support/uvu.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { floodUnknown } from '../gateway/drift-flood.js';

const test = suite('drift flood (soak)');
let upstream: Upstream;
test.before(async () => { upstream = await startUpstream(); });
test.after(async () => { await upstream.stop(); });

test('100 000 random unknown paths: /_gateway/drift and the metrics bounded, drift answered quickly', async () => {
  await floodUnknown(upstream.url, 100_000);
});

test.run();
