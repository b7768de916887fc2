// Silent connections under a descriptor limit, short: 420 under `ulimit -n 512` (1 100 under 1 024
// in test/soak/silent-connections.soak.ts).
import { suite } from '../support/uvu.js';
import { silentFlood } from './silent-flood.js';

const test = suite('overload: silent connections under a descriptor limit');

test('420 silent connections under ulimit -n 512: a normal client is served, the excess refused, the silent ones reaped', async () => {
  await silentFlood(512, 420, 64);
});

test.run();
