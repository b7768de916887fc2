// Issue 44: 100 000 requests to random concrete paths of templated routes leave metrics, drift and
// the access log bounded: every label is a template (npm test runs the same check with 2 000).
import { suite } from '../support/uvu.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { randomTemplatedPaths } from '../gateway/templated-cardinality.js';

const test = suite('templated paths (soak)');
let upstream: Upstream;
test.before(async () => { upstream = await startUpstream({}, undefined, { ownProcess: true }); });
test.after(async () => { await upstream.stop(); });

test('100 000 random concrete paths: labels, drift and access routes stay templates', async () => {
  await randomTemplatedPaths(upstream, 100_000);
});

test.run();
