// How often the gateway keeps a user-data stream's listen key alive is the catalogue's fact (the
// stream's keepAlive: interval and the expiry it protects against). The loader and `catalogue lint`
// refuse it missing where a keep-alive endpoint exists, malformed, not shorter than the expiry, or
// where the gateway would ignore it; and the keeper sends the keep-alive at the catalogue's interval.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { findService, resolveService } from '../../src/catalogue/resolve.js';
import { userDataKeeper } from '../../src/gateway/websocket/user-data.js';
import { createLogger } from '../../src/log.js';
import { Secret } from '../../src/upstream/signing/secret.js';
import { ROOT } from '../support/processes.js';
import { runTool } from '../support/tools.js';
import { catalogueFolder, problemsOf } from './folder.js';

const test = suite('user-data stream keep-alive in the catalogue');

const service = (id: string) =>
  `id: ${id}\ntitle: Demo\nkind: proxy\nupstreams: { rest: 'http://127.0.0.1:1' }\nsecurity: { apiKeyHeader: X-Key }\nerrors: { envelope: error }\n`;

/** streams.yaml; line 7 is the user-data stream, line 8 its keepAlive (if any), line 9 an extra field of the market stream. */
const streams = (keepAlive: string | null, marketExtra = '') => [
  'paths: { raw: /ws, combined: /stream }', //           1
  'placeholders:', //                                    2
  "  listenKey: { pattern: '^[A-Za-z0-9]+$' }", //       3
  "  symbol: { pattern: '^[a-z]+$' }", //                4
  'streams:', //                                         5
  "  - name: '<symbol>@trade'", //                       6
  "  - name: '<listenKey>'", //                          7
  ...(keepAlive === null ? [] : [`    keepAlive: ${keepAlive}`]), // 8
  ...(marketExtra ? ["  - name: '<symbol>@depth'", `    ${marketExtra}`] : []),
  '',
].join('\n');

/** The listen-key endpoints under `prefix`: PUT keeps the key alive, DELETE closes it. */
const endpoints = (prefix: string, putRequires = true) => [
  'module: stream', 'endpoints:',
  `  - { method: PUT, path: ${prefix}/listenKey, security: API_KEY, parameters: [{ name: listenKey, required: ${putRequires} }] }`,
  `  - { method: DELETE, path: ${prefix}/listenKey, security: API_KEY, parameters: [{ name: listenKey, required: true }] }`,
  '',
].join('\n');

const demo = (id: string, keepAlive: string | null, opts: { prefix?: string; putRequires?: boolean; marketExtra?: string } = {}) => ({
  [`${id}/service.yaml`]: service(id),
  [`${id}/streams.yaml`]: streams(keepAlive, opts.marketExtra),
  [`${id}/endpoints/stream.yaml`]: endpoints(opts.prefix ?? '/v1', opts.putRequires),
});

/** The problems of a catalogue made of these files, each as "<path inside the folder>:line: message". */
function problems(files: Record<string, string>): string[] {
  return problemsOf(catalogueFolder(files, 'cat-keepalive-')).map((p) => p.replace(/^.*?cat-keepalive-[^/]+\//, ''));
}

test('a user-data stream with a keep-alive endpoint must state its keepAlive', () => {
  assert.equal(problems(demo('demo', null)), [
    'demo/streams.yaml:7: stream <listenKey>: keepAlive missing: PUT /v1/listenKey keeps its listen key alive, so the stream must say how often and when the upstream expires the key (keepAlive: { interval, expiresAfter }, durations as in rateLimits)',
  ]);
});

test('a malformed keepAlive: a duration not written as rateLimits write them, a field missing, an unknown field', () => {
  assert.equal(problems(demo('demo', '{ interval: 30 minutes, expiresAfter: 60m }')), [
    'demo/streams.yaml:8: streams.1.keepAlive.interval: must match pattern "^[1-9][0-9]*[smhd]$" (got "30 minutes")',
  ]);
  assert.equal(problems(demo('demo', '{ interval: 30m, expiresAfter: 0m }')), [
    'demo/streams.yaml:8: streams.1.keepAlive.expiresAfter: must match pattern "^[1-9][0-9]*[smhd]$" (got "0m")',
  ]);
  assert.equal(problems(demo('demo', '{ interval: 30m }')), ['demo/streams.yaml:8: streams.1.keepAlive: missing required field "expiresAfter"']);
  assert.equal(problems(demo('demo', '{ interval: 30m, expiresAfter: 60m, every: 1m }')), ['demo/streams.yaml:8: streams.1.keepAlive: unknown field "every"']);
});

test('a keepAlive interval not shorter than the expiry it protects against', () => {
  const refusal = (interval: string, expiry: string) =>
    `demo/streams.yaml:8: stream <listenKey>: keepAlive.interval ${interval} must be shorter than keepAlive.expiresAfter ${expiry}: the upstream would close the stream between two keep-alives`;
  assert.equal(problems(demo('demo', '{ interval: 60m, expiresAfter: 60m }')), [refusal('60m', '60m')]);
  assert.equal(problems(demo('demo', '{ interval: 2h, expiresAfter: 60m }')), [refusal('2h', '60m')]);
  assert.equal(problems(demo('demo', '{ interval: 3601s, expiresAfter: 1h }')), [refusal('3601s', '1h')]);
  // Past a timer's longest delay Node would keep the key alive every millisecond: refused, whatever the expiry.
  assert.equal(problems(demo('demo', '{ interval: 25d, expiresAfter: 30d }')), [
    'demo/streams.yaml:8: stream <listenKey>: keepAlive.interval 25d is longer than a timer can wait (about 24 days): Node would fire it every millisecond instead',
  ]);
});

test('a keepAlive the gateway would ignore is refused: on a stream that is not a listen key, with no keep-alive endpoint', () => {
  assert.equal(problems(demo('demo', '{ interval: 30m, expiresAfter: 60m }', { marketExtra: 'keepAlive: { interval: 30m, expiresAfter: 60m }' })), [
    'demo/streams.yaml:10: stream <symbol>@depth: keepAlive applies to user-data streams (a template that is one placeholder, the listen key); here the gateway would ignore it',
  ]);
  assert.equal(problems(demo('demo', '{ interval: 30m, expiresAfter: 60m }', { putRequires: false })), [
    'demo/streams.yaml:7: stream <listenKey>: keepAlive (interval 30m): no API_KEY PUT endpoint requires parameter listenKey, so the gateway would never send it',
  ]);
});

test('catalogue lint names file, line, field, value and reason of each refusal, and exits 1', () => {
  const dir = catalogueFolder({
    ...demo('missing', null, { prefix: '/a' }),
    ...demo('malformed', '{ interval: half an hour, expiresAfter: 60m }', { prefix: '/b' }),
    ...demo('toolong', '{ interval: 90m, expiresAfter: 60m }', { prefix: '/c' }),
  }, 'cat-keepalive-lint-');
  const r = runTool('catalogue', ['lint', '--catalogue', dir]);
  assert.is(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /error: \S*missing\/streams\.yaml:7: stream <listenKey>: keepAlive missing: PUT \/a\/listenKey keeps its listen key alive/);
  assert.match(r.stdout, /error: \S*malformed\/streams\.yaml:8: streams\.1\.keepAlive\.interval: must match pattern .* \(got "half an hour"\)/);
  assert.match(r.stdout, /error: \S*toolong\/streams\.yaml:8: stream <listenKey>: keepAlive\.interval 90m must be shorter than keepAlive\.expiresAfter 60m/);
  assert.match(r.stdout, /3 error\(s\)/);
});

test('the shipped catalogue states the exchange listen key keep-alive, shorter than its expiry', () => {
  const { catalogue } = loadCatalogue(join(ROOT, 'catalogue'), { modelCache: false });
  // At 3.12.0, where listen keys were alive (retired 2026.01.21: the bridge keeps their streams, docs/user-data.md).
  const stream = resolveService(findService(catalogue, 'exchange'), '3.12.0').streams.find((s) => s.name === '<listenKey>');
  assert.ok(stream?.keepAlive, 'the <listenKey> stream has keepAlive');
  assert.ok(stream.keepAlive.source?.includes('user-data-stream.md'), stream.keepAlive.source);
  assert.is(stream.keepAlive.intervalMs, 30 * 60_000);
  assert.is(stream.keepAlive.expiresAfter, '60m');
});

/** A REST upstream of the listen-key endpoints that records each request. */
async function restUpstream() {
  const calls: { method: string; url: string; apiKey?: string; at: number }[] = [];
  const server: Server = createServer((req, res) => {
    calls.push({ method: req.method ?? '', url: req.url ?? '', apiKey: req.headers['x-key'] as string | undefined, at: performance.now() });
    req.resume();
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, calls, stop: () => new Promise<void>((r) => server.close(() => r())) };
}

test('the keeper sends the keep-alive at the interval the catalogue states (no override)', async () => {
  const { catalogue } = loadCatalogue(catalogueFolder(demo('demo', '{ interval: 1s, expiresAfter: 2s }'), 'cat-keepalive-run-'), { modelCache: false });
  const view = resolveService(findService(catalogue, 'demo'));
  const rest = await restUpstream();
  const keeper = userDataKeeper({ view, upstreams: { demo: rest.url }, apiKey: new Secret('demo-key'), timeoutMs: 5000, logger: createLogger('silent') });
  try {
    assert.ok(keeper, 'a keeper for the catalogue with a user-data stream');
    assert.is(keeper.template, '<listenKey>');
    const held = performance.now();
    const release = keeper.hold(['abc123']);
    const deadline = Date.now() + 15_000;
    while (!rest.calls.length && Date.now() < deadline) await sleep(20);
    const [put] = rest.calls;
    assert.ok(put, 'a keep-alive');
    assert.equal({ method: put.method, url: put.url, apiKey: put.apiKey }, { method: 'PUT', url: '/v1/listenKey?listenKey=abc123', apiKey: 'demo-key' });
    // A timer never fires early: the first keep-alive waits the catalogue's 1s (1 ms for clock rounding).
    assert.ok(put.at - held >= 999, `first keep-alive ${(put.at - held).toFixed(0)} ms after the hold`);
    release();
    const kept = rest.calls.length;
    while (rest.calls.length === kept && Date.now() < deadline) await sleep(20);
    assert.equal(rest.calls.map((c) => c.method), [...Array(kept).fill('PUT'), 'DELETE'], 'keep-alives, then the close');
    assert.is(rest.calls[kept].url, '/v1/listenKey?listenKey=abc123');
  } finally {
    await rest.stop();
  }
});

test.run();
