// --workers with the in-process store: workers count apart, so each keeps to its share of every
// limit and together they never exceed it.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { startGatewayProcess, startUpstream, type Upstream } from '../support/processes.js';
import { catalogueWithLimits } from './small-limits.js';

const test = suite('rate limits under --workers');
let up: Upstream;
test.before(async () => { up = await startUpstream(); });
test.after(async () => { await up.stop(); });

test('2 workers: each refuses past half the limit; the combined forwarded weight stays within it', async () => {
  const catalogue = catalogueWithLimits({ weight: 100 });
  // The checkout's cache folder, as the gateway uses it: the copy's unchanged parses and schema
  // verdicts come from it (a cache folder of its own made the primary and each worker load cold).
  const gw = await startGatewayProcess(['--workers', '2', '--release', '3.12.0', '--upstream', `exchange=${up.url}`, '--catalogue', catalogue]);
  try {
    const answers = await Promise.all(Array.from({ length: 40 }, async () => {
      const r = await fetch(`${gw.url}/api/v3/depth?symbol=BTCUSDT&limit=100`); // weight 5
      return { status: r.status, body: await r.json() as { msg?: string } };
    }));
    const ok = answers.filter((a) => a.status === 200).length;
    const forwarded = (await up.records()).filter((r) => r.url.startsWith('/api/v3/depth')).length;
    assert.is(forwarded, ok);
    assert.ok(ok * 5 <= 100, `${ok} forwarded`);
    assert.ok(ok >= 10, `at least one worker's share forwarded (${ok})`);
    const refused = answers.filter((a) => a.status === 429);
    assert.is(refused.length, 40 - ok);
    assert.match(refused[0].body.msg!, /this process's share: 50/);
  } finally {
    await gw.stop();
  }
});

test.run();
