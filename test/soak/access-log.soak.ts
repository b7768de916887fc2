// Issue 25: 10 000 requests, then SIGTERM: the access log holds 10 000 lines, each JSON, in the order
// they were answered (npm test runs the same check with 2 000, see test/observe/access-log-order.ts).
import { suite } from '../support/uvu.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { linesThroughStop } from '../observe/access-log-order.js';

const test = suite('access log (soak)');
let upstream: Upstream;
test.before(async () => { upstream = await startUpstream({}, undefined, { ownProcess: true }); });
test.after(async () => { await upstream.stop(); });

test('10 000 requests then SIGTERM: 10 000 access lines, each JSON, in the order they were answered', async () => {
  await linesThroughStop(upstream.url, 10_000);
});

test.run();
