// Reloads with traffic keep the live heap flat (issue 22 finding 1): 200 swaps of a program compiled
// from the catalogue on disk, each followed by a rate-limited request. The 1 000-cycle run through
// POST /_gateway/reload is test/soak/reload-heap.soak.ts.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import type { RunningGateway } from '../../src/server.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { heapStaysFlat, reloadGateway, swapFromDisk } from './reload-heap.js';

const test = suite('rate limiter: no program outlives its reload');
let upstream: Upstream;
let gw: RunningGateway;

test.before(async () => {
  upstream = await startUpstream();
  gw = await reloadGateway(upstream.url);
});
test.after(async () => {
  await gw.close();
  await upstream.stop();
});

test('200 reloads, each followed by a rate-limited request: live heap flat', async () => {
  const { perProgram, growth } = await heapStaysFlat(gw, 200, swapFromDisk(gw, upstream.url));
  console.log(`one program: ${(perProgram / 2 ** 20).toFixed(2)} MiB; growth over 200 reloads: ${(growth / 2 ** 20).toFixed(2)} MiB`);
  assert.ok(perProgram > 0);
});

test.run();
