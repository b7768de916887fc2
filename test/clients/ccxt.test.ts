// ccxt, the most used multi-exchange client, as its users call it: 13 unified calls through a
// recording tap → the gateway pinned at 3.12.0 WITH --strict → the local verifying upstream, which
// answers with realistic shapes (test/clients/fixtures) so ccxt parses them and goes on. ccxt signs
// every /sapi call and sends list parameters its own way: none of it may be refused, and every
// forwarded request must be byte-identical to what ccxt sent.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { PIN } from './sample-values.js';
import { tappedGateway } from './tap.js';
import { binanceAt, CALLS, FIXTURES, unifiedFailures } from './ccxt-client.js';

const test = suite(`ccxt through the gateway at ${PIN} --strict`);
const t = tappedGateway(test, PIN, ['--strict'], FIXTURES);

test(`${CALLS.length} unified calls succeed with --strict, forwarded byte for byte`, async () => {
  const { tap, upstream } = t;
  const failed = await unifiedFailures(binanceAt(tap.url));
  const sapi = tap.sent.filter((s) => s.url.startsWith('/sapi/'));
  console.log(`ccxt: ${CALLS.length - failed.length}/${CALLS.length} unified calls, ${tap.sent.length} requests (${sapi.length} signed /sapi)`);
  assert.equal(failed, []);
  assert.ok(sapi.length >= 3 && sapi.every((s) => /[?&]signature=/.test(s.url)), 'ccxt signed its /sapi calls');
  const forwarded = (await upstream.records()).map((r) => ({ method: r.method, url: r.url, body: r.body }));
  assert.equal(forwarded, tap.sent, 'forwarded byte for byte');
  assert.ok((await upstream.records()).every((r) => r.verified !== false), 'every signature verified at the upstream');
});

test.run();
