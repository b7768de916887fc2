// Issue 26: 5 000 keep-alive clients, one request each, within a second: all 5 000 answered 200 (they
// wait in the route's queue rather than being refused). The gateway runs as its CLI, in its own
// process with its own descriptors; this process holds the 5 000 client sockets.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { startGatewayProcess, startUpstream } from '../support/processes.js';
import { burst, count, percentile } from '../overload/load.js';

const test = suite('5 000 keep-alive clients (soak)');

test('5 000 keep-alive clients with one request each: 5 000 × 200', async () => {
  const upstream = await startUpstream({}, undefined, { ownProcess: true });
  const gw = await startGatewayProcess(['--upstream', `exchange=${upstream.url}`, '--release', '3.12.0', '--rate-limit', 'off', '--log-level', 'warn']);
  try {
    // Arriving within one second: all 5 000 at the same instant would overflow the listen backlog
    // (511, node's default) and measure the kernel's SYN retries instead.
    const results = await burst(gw.url, '/api/v3/ping', 5000, {}, 1000);
    console.log(`5 000 clients: ${JSON.stringify(count(results))}, p99 ${percentile(results, 99).toFixed(0)} ms`);
    if (!results.every((r) => r.status === 200)) console.log(gw.output().split('\n').filter((l) => l.includes('×') || l.includes('overload')).join('\n'));
    assert.equal(count(results), { 200: 5000 });
  } finally {
    await gw.stop();
    await upstream.stop();
  }
});

test.run();
