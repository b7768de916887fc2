// Issue 11's flood at full size: 4 connections × 30 000 pipelined GETs that are never read.
import { suite } from '../support/uvu.js';
import { pipeliningFlood } from '../gateway/flood.js';
import { startUpstream, type Upstream } from '../support/processes.js';

const test = suite('pipelining flood (soak)');
let upstream: Upstream;
test.before(async () => { upstream = await startUpstream({}, undefined, { ownProcess: true }); });
test.after(async () => { await upstream.stop(); });

test('4 × 30 000 unread pipelined GETs: the upstream sees only what the bound allows; RSS < +150 MiB', async () => {
  await pipeliningFlood(upstream, 30_000, 3000);
});

test.run();
