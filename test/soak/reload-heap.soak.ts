// Issue 22's acceptance: the reload loop runs 1 000 cycles (POST /_gateway/reload, then a request
// to a rate-limited route) with the live heap flat.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import type { RunningGateway } from '../../src/server.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { heapStaysFlat, reloadGateway } from '../rate-limit/reload-heap.js';

const test = suite('reload loop, 1 000 cycles (soak)');
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

test('1 000 × (POST /_gateway/reload, rate-limited GET): live heap flat', async () => {
  await heapStaysFlat(gw, 1000, async () => {
    const r = await fetch(`${gw.url}/_gateway/reload`, { method: 'POST' });
    assert.is(r.status, 200, await r.text());
  });
});

test.run();
