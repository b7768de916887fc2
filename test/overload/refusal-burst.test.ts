// Refusals are counted, not narrated: a burst of 1 000 refusals writes a few summary warn lines
// with their counts, while each refusal keeps its own access line.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { createLogger } from '../../src/log.js';
import type { RunningGateway } from '../../src/server.js';
import { gatewayAt } from '../support/gateway.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { burst, count } from './load.js';

const test = suite('overload: refusal summaries');
let upstream: Upstream;
let gw: RunningGateway;
const lines: string[] = [];

test.before(async () => {
  upstream = await startUpstream();
  // One request at the upstream at a time and no queue: every other request of a burst is refused.
  gw = await gatewayAt('3.12.0', upstream.url, ['--rate-limit', 'off', '--route-concurrency', '1', '--route-queue', '0'], {
    logger: createLogger('info', (l) => lines.push(l)),
  });
});
test.after(async () => {
  await gw.close(0);
  await upstream.stop();
});

test('a 1 000-refusal burst writes at most 5 summary warn lines; each refusal has its access line', async () => {
  const results = await burst(gw.url, '/api/v3/ping', 1003, { 'x-test-delay-ms': '3000' });
  const { 200: served, 503: refused, ...other } = count(results);
  assert.equal(other, {});
  assert.ok(served >= 1 && refused >= 1000, `${served} served, ${refused} refused`); // a slow client may send its last after the first answers
  await gw.close(0); // writes the last interval's line
  const records = lines.map((l) => JSON.parse(l) as { msg: string; level: string | number; status?: number });
  const summaries = records.filter((r) => r.msg.startsWith('503 overloaded × '));
  assert.ok(summaries.length >= 1 && summaries.length <= 5, `${summaries.length} summary lines`);
  const total = summaries.reduce((n, r) => n + Number(/× (\d+)/.exec(r.msg)![1]), 0);
  assert.is(total, refused, 'the summaries count every refusal');
  assert.match(summaries[0].msg, /^503 overloaded × \d+ in the last [\d.]+ s on GET \/api\/v3\/ping: \d+ requests at the upstream and 0 waiting \(the route's queue is full\)$/);
  const warns = records.filter((r) => r.level === 'warn' || r.level === 40);
  assert.is(warns.length, summaries.length, `warn lines other than the summaries: ${warns.filter((w) => !summaries.includes(w)).map((w) => w.msg).join(' | ')}`);
  assert.is(records.filter((r) => r.msg === 'access' && r.status === 503).length, refused);
});

test.run();
