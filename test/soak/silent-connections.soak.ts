// Issue 26 at full size: 1 100 silent connections under `ulimit -n 1024` (the default pool of 256
// upstream sockets): a normal client calling every 200 ms is served throughout, the cap derived
// from the descriptors refuses the excess with 503, the overload manager reaps the silent ones.
import { suite } from '../support/uvu.js';
import { silentFlood } from '../overload/silent-flood.js';

const test = suite('silent connections under ulimit -n 1024 (soak)');

test('1 100 silent connections under ulimit -n 1024: normal client p99 < 1 s, excess refused, silent ones reaped', async () => {
  await silentFlood(1024, 1100, 256);
});

test.run();
