// Issue 22 finding 3: metrics with bounded cardinality. The worst case — every served release
// (--release all), every method node parses, statuses from 100 to 999 relayed from the upstream,
// every endpoint, releases that are not served — must scrape small (≤ 1 MiB) and fast, with every
// label from a fixed set and the series capped (--metrics-max-series) into an overflow series.
import { Agent, METHODS, request } from 'node:http';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import type { RunningGateway } from '../../src/server.js';
import { gatewayAt } from '../support/gateway.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { checkExposition } from './exposition.js';

const test = suite('metrics: bounded cardinality');
let upstream: Upstream;
let gw: RunningGateway;
const agent = new Agent({ keepAlive: true, maxSockets: 8 });

test.before(async () => {
  upstream = await startUpstream();
  gw = await gatewayAt('all', upstream.url, ['--log-level', 'silent']);
});
test.after(async () => {
  agent.destroy();
  await gw.close();
  await upstream.stop();
});

/** One request over the keep-alive pool; resolves with its status (0 when the connection was cut). */
function send(method: string, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const req = request(`${gw.url}${path}`, { method, headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

/** Run `jobs` 8 at a time. */
async function pool(jobs: (() => Promise<unknown>)[]): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => { while (next < jobs.length) await jobs[next++](); }));
}

/** CPU time this process has used, in ms (the gateway runs in it: its work, not the wall clock). */
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

/** One scrape and the CPU it cost (server and client: both run here). CPU rather than wall time,
 *  because a scrape spans several turns of the loop, and on a shared machine each turn may wait for
 *  a core: under the two busy loops of `test:load` the wall time reached 155 ms for ~30 ms of work. */
async function scrape(): Promise<{ text: string; ms: number }> {
  const c0 = cpuMs();
  const res = await fetch(`${gw.url}/_gateway/metrics`);
  const text = await res.text();
  assert.is(res.status, 200);
  return { text, ms: cpuMs() - c0 };
}
/** The cheapest of `n` scrapes. */
async function scrapeTime(n = 5): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) ms.push((await scrape()).ms);
  return Math.min(...ms);
}

const labels = (text: string, name: string) => [...text.matchAll(/^http_request_duration_seconds_count\{([^}]*)\}/gm)].map((m) => Object.fromEntries([...m[1].matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]])))
  .map((l) => l[name]);

test('worst case: every release, method, status and endpoint → ≤ 1 MiB, capped series, fixed label sets, fast', async () => {
  // The reference: scrapes of this gateway before the flood (default metrics, a handful of series).
  for (const p of ['/api/v3/ping', '/api/v3/time']) assert.is(await send('GET', p), 200);
  const small = await scrapeTime();

  const state = gw.gateway.state();
  const releases = [...state.byId.keys()];
  assert.ok(releases.length >= 40, `--release all serves ${releases.length} releases`);
  const statuses = [200, 201, 204, 302, 400, 404, 418, 429, 500, 502, 503, 599, 600, 799, 999];
  const plain = ['/api/v3/ping', '/api/v3/time', '/api/v3/depth?symbol=BTCUSDT&limit=5', '/api/v3/trades?symbol=BTCUSDT', '/api/v3/avgPrice?symbol=BTCUSDT'];
  const jobs: (() => Promise<unknown>)[] = [];
  releases.forEach((r, i) => plain.forEach((p, j) => {
    for (let k = 0; k < 3; k++) jobs.push(() => send('GET', `/@${encodeURIComponent(r)}${p}`, { 'x-test-status': String(statuses[(i + j + k) % statuses.length]) }));
  }));
  // Every endpoint of the default release, as its method, without its parameters (400s, 401s…).
  for (const v of state.default.views) for (const e of v.served) jobs.push(() => send(e.endpoint.method, e.endpoint.path.replace(/\{[^}]+\}/g, 'x')));
  // Every method node parses (CONNECT takes the socket over: not a request with an answer).
  for (const m of METHODS.filter((x) => x !== 'CONNECT')) for (const p of ['/api/v3/ping', '/nowhere', '/_gateway/health']) jobs.push(() => send(m, p));
  // Releases that are not served, by header and by prefix.
  for (let i = 0; i < 30; i++) jobs.push(() => send('GET', '/api/v3/ping', { 'x-gateway-release': `9.${i}.0` }), () => send('GET', `/@0.0.${i}/api/v3/ping`));
  await pool(jobs);

  const { text } = await scrape();
  const bytes = Buffer.byteLength(text);
  checkExposition(text);
  const series = labels(text, 'route').length;
  assert.ok(bytes <= 2 ** 20, `worst-case scrape ${(bytes / 2 ** 20).toFixed(2)} MiB (${series} request series)`);
  // The cap: 400 series in all (request and upstream histograms together), plus one overflow series each.
  assert.ok(series <= 401, `${series} request series`);
  assert.ok(labels(text, 'route').includes('overflow'), 'the overflow series counts what did not fit');
  const overflowed = Number(/\ngateway_metrics_overflow_total (\d+)\n/.exec(text)?.[1]);
  assert.ok(overflowed > 0, `gateway_metrics_overflow_total ${overflowed}`);
  assert.match(text, /\ngateway_metrics_series 400\n/);
  // Every label from its fixed set.
  const methods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'CONNECT', 'TRACE', 'other']);
  for (const m of labels(text, 'method')) assert.ok(methods.has(m), `method label ${m}`);
  const served = new Set(['', 'other', ...releases]);
  for (const r of labels(text, 'release')) assert.ok(served.has(r), `release label ${r}`);
  for (const s of labels(text, 'status')) assert.match(s, /^([1-5]\d\d|other)$/, `status label ${s}`);
  assert.ok(labels(text, 'method').includes('other'), 'PROPFIND, MKCOL… are "other"');
  assert.not.match(text, /release="(9|0\.0)\.\d+\.0"/, 'a release not served never becomes a label');

  // Fast: the capped scrape costs a bounded multiple of the near-empty one (it was 5 s for 71 MiB).
  const worst = await scrapeTime();
  console.log(`scrape: ${(bytes / 1024).toFixed(0)} KiB, ${series} request series, ${worst.toFixed(1)} ms CPU (near-empty: ${small.toFixed(1)} ms)`);
  // The bound is 100 ms on this machine. The suite shares two cores, so the reference is CPU
  // work of the same size measured in this process now: writing the same number of exposition
  // lines. The capped scrape costs ~35x that reference, quiet and beside two busy loops alike
  // (21-27 ms against 0.6-0.7 ms); the uncapped one (71 MiB, 5 s) cost thousands of times it.
  const lines = text.split('\n').length;
  const reference = cheapestOf(5, () => {
    let out = '';
    for (let i = 0; i < lines; i++) out += `http_request_duration_seconds_bucket{method="GET",route="/api/v3/r${i % 500}",status="200",release="3.12.0",le="${(i % 17) / 10}"} ${i}\n`;
    return out.length;
  });
  console.log(`reference: ${lines} exposition lines written in ${reference.toFixed(1)} ms CPU`);
  assert.ok(worst <= Math.max(100, 8 * small, 100 * reference), `worst-case scrape ${worst.toFixed(1)} ms; near-empty ${small.toFixed(1)} ms; ${lines} lines written in ${reference.toFixed(1)} ms`);
});

/** The least CPU of `n` runs of `f`, in ms. */
function cheapestOf(n: number, f: () => unknown): number {
  let best = Infinity;
  for (let i = 0; i < n; i++) {
    const c0 = cpuMs();
    f();
    best = Math.min(best, cpuMs() - c0);
  }
  return best;
}

test.run();
