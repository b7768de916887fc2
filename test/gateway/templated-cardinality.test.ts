// 2 000 random concrete paths of templated routes: labels, drift and access lines stay templates
// (the soak, test/soak/templated-paths.soak.ts, sends 100 000).
import { suite } from '../support/uvu.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { randomTemplatedPaths } from './templated-cardinality.js';

const test = suite('templated paths: bounded tables');
let upstream: Upstream;
test.before(async () => { upstream = await startUpstream(); });
test.after(async () => { await upstream.stop(); });

test('2 000 random concrete paths of five templates: every label and access route a template, no drift', async () => {
  await randomTemplatedPaths(upstream, 2000);
});

test.run();
