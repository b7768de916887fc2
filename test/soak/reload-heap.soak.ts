// Issue 22's acceptance: the reload loop runs 1 000 cycles (POST /_gateway/reload, then a request
// to a rate-limited route) with the live heap flat.
import * as assert from '../support/assert.js';
import { reloadHeapSuite } from '../rate-limit/reload-heap.js';

reloadHeapSuite('reload loop, 1 000 cycles (soak)', '1 000 × (POST /_gateway/reload, rate-limited GET): live heap flat', 1000, (gw) => async () => {
  const r = await fetch(`${gw.url}/_gateway/reload`, { method: 'POST' });
  assert.is(r.status, 200, await r.text());
});
