// The start-up check of the configured upstreams: a listening one passes silently, a closed port
// and a URL that is not one are each named once with the reason, credentials never shown; under
// --workers the gateway says it once, not once per worker.
import { createServer, type Server } from 'node:net';
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { upstreamTargets, warnUnreachableUpstreams } from '../../src/upstream/reachability.js';
import { startGatewayProcess, startUpstream } from '../support/processes.js';

const listening = (): Promise<Server> => new Promise((resolve) => { const s = createServer((c) => c.destroy()); s.listen(0, '127.0.0.1', () => resolve(s)); });
const portOf = (s: Server) => (s.address() as { port: number }).port;
/** A loopback port nothing listens on: one the kernel just gave out, closed again. */
async function closedPort(): Promise<number> {
  const s = await listening();
  const port = portOf(s);
  await new Promise((r) => s.close(r));
  return port;
}

test('one warning per unreachable upstream, with the reason; none for a listening one; no credentials', async () => {
  const up = await listening();
  const closed = await closedPort();
  const warnings: string[] = [];
  try {
    await warnUnreachableUpstreams([
      { name: 'exchange', url: `http://127.0.0.1:${portOf(up)}` },
      { name: 'exchange.streams', url: `ws://user:s3cret@127.0.0.1:${closed}/stream?listenKey=abc` },
      { name: 'other', url: 'not a url' },
    ], (m) => warnings.push(m), 2000);
  } finally {
    up.close();
  }
  assert.equal(warnings.sort(), [
    `upstream exchange.streams (ws://127.0.0.1:${closed}/stream) cannot be reached: ECONNREFUSED; its requests will fail until it can`,
    'upstream other ((not a URL)) cannot be reached: not a URL; its requests will fail until it can',
  ]);
  assert.not.match(warnings.join('\n'), /s3cret|listenKey/);
});

test('the targets: each service\'s REST, streams and websocket-API upstream, overrides first, each URL once', () => {
  const { catalogue } = loadCatalogue();
  const targets = upstreamTargets(catalogue, { exchange: 'http://127.0.0.1:1', 'exchange.wsApi': 'http://127.0.0.1:1' });
  assert.equal(targets.filter((t) => t.name.startsWith('exchange')), [
    { name: 'exchange', url: 'http://127.0.0.1:1' },
    { name: 'exchange.streams', url: 'wss://stream.binance.com:9443' },
  ]);
});

test('--workers 2: the gateway warns once about an upstream it cannot reach, and serves', async () => {
  const up = await startUpstream({});
  const closed = await closedPort();
  const gw = await startGatewayProcess(['--upstream', `exchange=${up.url}`, '--upstream', `exchange.streams=ws://127.0.0.1:${closed}`,
    '--upstream', `exchange.wsApi=ws://127.0.0.1:${closed}`, '--workers', '2', '--log-level', 'warn']);
  try {
    const warned = () => gw.output().split('\n').filter((l) => l.includes('cannot be reached'));
    for (let i = 0; i < 100 && warned().length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.is((await fetch(`${gw.url}/api/v3/ping`)).status, 200, 'serving');
    await new Promise((r) => setTimeout(r, 300)); // a second warning would have come by now
    assert.is(warned().length, 1, gw.output());
    assert.match(warned()[0], new RegExp(`upstream exchange\\.streams \\(ws://127\\.0\\.0\\.1:${closed}\\) cannot be reached: ECONNREFUSED`));
  } finally {
    await gw.stop();
    await up.stop();
  }
});

test.run();
