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

test('a 1 000-request burst at a hung route (--timeout 3000): the 504s are summarised like the 503s, at most 5 warn lines', async () => {
  const own: string[] = [];
  const hung = await gatewayAt('3.12.0', upstream.url, ['--rate-limit', 'off', '--timeout', '3000'], { logger: createLogger('info', (l) => own.push(l)) });
  try {
    const results = await burst(hung.url, '/api/v3/klines?symbol=BTCUSDT&interval=1m', 1000, { 'x-test-delay-ms': '60000' });
    const { 503: refused = 0, 504: late = 0, ...other } = count(results);
    assert.equal(other, {});
    assert.ok(late >= 1 && refused >= 1, `${late} answered 504, ${refused} refused`);
    await hung.close(0); // writes the last interval's lines
    const records = own.map((l) => JSON.parse(l) as { msg: string; level: string | number; status?: number });
    const warns = records.filter((r) => r.level === 'warn' || r.level === 40);
    assert.ok(warns.length <= 5, `${warns.length} warn lines:\n${warns.map((w) => w.msg).join('\n')}`);
    const summaries = warns.filter((r) => r.msg.startsWith('504 no answer within the deadline × '));
    assert.is(summaries.reduce((n, r) => n + Number(/× (\d+)/.exec(r.msg)![1]), 0), late, 'the summaries count every 504');
    assert.match(summaries[0].msg, /^504 no answer within the deadline × \d+ in the last [\d.]+ s on GET \/api\/v3\/klines: 3000 ms \(--timeout\) passed/);
    assert.is(records.filter((r) => r.msg === 'access' && r.status === 504).length, late, 'each 504 keeps its access line');
  } finally {
    await hung.close(0);
  }
});

test.run();
