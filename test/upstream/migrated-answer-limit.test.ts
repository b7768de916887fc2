// The answer of a migrated route is held in memory to be carried back down its plan: only up to
// --migrated-answer-limit. A longer one (with a Content-Length, or chunked) is cut off at the upstream
// and answered 502 in the service's envelope; a shorter one is migrated; a route nothing migrates
// streams any size through. (The 300 MiB measurement is test/soak/migrated-answer-memory.soak.ts.)
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { gatewayAt } from '../support/gateway.js';
import { largeUpstream, type LargeUpstream } from '../support/large-upstream.js';
import type { RunningGateway } from '../../src/server.js';

const test = suite('migrated answers: bounded by --migrated-answer-limit');
const LIMIT = 64 * 1024;
const MIGRATED = '/@3.5.1/sapi/v1/margin/asset?asset=BTC'; // margin-asset-to-all-assets: moved, its answer unwrapped
const PLAIN = '/@3.5.1/api/v3/exchangeInfo';

let upstream: LargeUpstream;
let gateway: RunningGateway;

test.before(async () => {
  upstream = await largeUpstream();
  gateway = await gatewayAt('3.5.1,3.12.0', upstream.url, ['--migrated-answer-limit', String(LIMIT)]);
});
test.after(async () => {
  await gateway?.close();
  await upstream?.stop();
});

const get = (path: string) => fetch(`${gateway.url}${path}`, { headers: { 'x-mbx-apikey': 'k' } });

test('an answer under the limit is migrated (the one-item list unwrapped)', async () => {
  upstream.set(LIMIT / 2, true);
  const res = await get(MIGRATED);
  assert.is(res.status, 200);
  assert.ok(res.headers.get('x-gateway-migrated'));
  const body = await res.json() as { assetName: string; pad: string };
  assert.is(body.assetName, 'BTC');
});

for (const withLength of [true, false]) {
  test(`an answer over the limit (${withLength ? 'Content-Length' : 'chunked'}) is a 502 in the envelope naming the setting`, async () => {
    upstream.set(16 * LIMIT, withLength);
    const res = await get(MIGRATED);
    assert.is(res.status, 502);
    const body = await res.json() as { code: number; msg: string };
    assert.is(body.code, -1001);
    assert.match(body.msg, /--migrated-answer-limit/);
    assert.match(body.msg, new RegExp(`${LIMIT} bytes`));
  });
}

test('a route nothing migrates passes the same answer through whole', async () => {
  upstream.set(16 * LIMIT, false);
  const res = await get(PLAIN);
  assert.is(res.status, 200);
  assert.is((await res.arrayBuffer()).byteLength, 16 * LIMIT);
});

test.run();
