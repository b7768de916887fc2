// Issue 14's reload soak: 20 reloads under ~200 requests a second, alternating valid and broken edits.
import { rmSync } from 'node:fs';
import { suite } from '../support/uvu.js';
import { dirs, reloadsUnderLoad } from '../gateway/reload-load.js';
import { startUpstream, type Upstream } from '../support/processes.js';

const test = suite('reload under load (soak)');
let upstream: Upstream;
test.before(async () => { upstream = await startUpstream({}, undefined, { ownProcess: true }); });
test.after(async () => {
  await upstream.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('20 reloads alternating valid and broken edits: 0 failed requests', async () => {
  await reloadsUnderLoad(upstream, 20);
});

test.run();
