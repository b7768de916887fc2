// Metrics in Prometheus's text format (prom-client): latency histograms for requests, upstream
// calls and builds, websocket gauges with HELP, default process and Node.js metrics; every request
// labelled by what it was with bounded label values; `promtool check metrics` clean; under
// --workers one scrape shows every worker.
import { request } from 'node:http';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import type { RunningGateway } from '../../src/server.js';
import { sendLovelaceRequest } from '../builders/cardano/fixtures.js';
import { gatewayAt } from '../support/gateway.js';
import { startGatewayProcess, startUpstream, type Upstream } from '../support/processes.js';
import { checkExposition } from './exposition.js';

const test = suite('metrics');
let upstream: Upstream;
let gw: RunningGateway;

test.before(async () => {
  upstream = await startUpstream();
  gw = await gatewayAt('3.12.0', upstream.url);
});
test.after(async () => {
  await gw.close();
  await upstream.stop();
});

const scrape = async (base: string) => {
  const res = await fetch(`${base}/_gateway/metrics`);
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return res.text();
};

const routes = (text: string) => new Set([...text.matchAll(/http_request_duration_seconds_count\{[^}]*route="([^"]*)"/g)].map((m) => m[1]));

test('histograms for requests, upstream calls and builds; gauges; default metrics; promtool clean', async () => {
  assert.is((await fetch(`${gw.url}/api/v3/ping`)).status, 200);
  const built = await fetch(`${gw.url}/send_lovelace`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sendLovelaceRequest()) });
  assert.is(built.status, 200, await built.text());
  const text = await scrape(gw.url);
  checkExposition(text);
  assert.match(text, /# TYPE http_request_duration_seconds histogram/);
  assert.match(text, /http_request_duration_seconds_count\{method="GET",route="\/api\/v3\/ping",status="200",release="3\.12\.0"\} 1\n/);
  assert.match(text, /http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/api\/v3\/ping",status="200",release="3\.12\.0"\} 1\n/);
  assert.match(text, /gateway_upstream_duration_seconds_count\{route="\/api\/v3\/ping",release="3\.12\.0"\} 1\n/);
  assert.match(text, /gateway_builder_duration_seconds_count\{builder="[\w-]+",outcome="ok"\} 1\n/);
  assert.match(text, /http_request_duration_seconds_count\{method="POST",route="\/send_lovelace",status="200",release=""\} 1\n/);
  assert.not.match(text, /gateway_upstream_duration_seconds_count\{route="\/send_lovelace"/, 'a build is not an upstream call');
  for (const g of ['gateway_websocket_open', 'gateway_websocket_connecting']) {
    assert.match(text, new RegExp(`# HELP ${g} \\S.*\\n# TYPE ${g} gauge\\n${g} 0\\n`));
  }
  assert.match(text, /# TYPE gateway_websocket_accepted_total counter/);
  for (const d of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
    assert.match(text, new RegExp(`\\n${d} `), d);
  }
});

test('admin, refused and preflight requests are labelled by what they are; unknown paths never become labels', async () => {
  for (let i = 0; i < 20; i++) await (await fetch(`${gw.url}/probe-${i}-${Math.random()}`)).arrayBuffer();
  await (await fetch(`${gw.url}/api/v3/ping`, { method: 'PATCH' })).arrayBuffer();
  await (await fetch(`${gw.url}/_gateway/health`)).arrayBuffer();
  await (await fetch(`${gw.url}/_gateway/no-such-page-${Math.random()}`)).arrayBuffer();
  await (await fetch(`${gw.url}/api/v3/klines`, { method: 'OPTIONS', headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET' } })).arrayBuffer();
  const text = await scrape(gw.url);
  checkExposition(text);
  const seen = routes(text);
  for (const want of ['refused:404', 'refused:405', 'admin:/_gateway/health', 'admin:/_gateway/metrics', 'admin:unknown', 'preflight']) assert.ok(seen.has(want), `${want} in ${[...seen]}`);
  for (const r of seen) assert.match(r, /^(\/[\w/.-]*|admin:(\/_gateway\/[\w.]+|unknown)|refused:\d{3}|preflight)$/, `bounded label: ${r}`);
  assert.not.match(text, /unmatched|probe-|no-such-page/);
  assert.match(text, /http_request_duration_seconds_count\{method="GET",route="refused:404",status="404",release="3\.12\.0"\} 20\n/);
});

/** GET over a fresh connection, so the cluster's round-robin hands it to the next worker. */
function freshGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { agent: false }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => { body += d.toString(); });
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    }).on('error', reject).end();
  });
}

test('--workers 2: each scrape, whichever worker answers it, counts the requests of every worker', async () => {
  const cgw = await startGatewayProcess(['--workers', '2', '--release', '3.12.0', '--upstream', `exchange=${upstream.url}`]);
  try {
    // The workers share one listening socket and the kernel picks who accepts: send (10 at a time,
    // each on a fresh connection) until both have served, so the aggregate really spans workers.
    let sent = 0;
    const servers = () => new Set(cgw.output().split('\n').filter((l) => l.includes('"msg":"access"') && l.includes('/api/v3/ping')).map((l) => (JSON.parse(l) as { pid: number }).pid));
    while (sent < 300 && (sent < 10 || servers().size < 2)) {
      const answers = await Promise.all(Array.from({ length: 10 }, () => freshGet(`${cgw.url}/api/v3/ping`)));
      for (const a of answers) assert.is(a.status, 200);
      sent += 10;
      await new Promise((r) => setTimeout(r, 1100)); // access lines are written within a second
    }
    for (let i = 0; i < 4; i++) {
      const { status, body } = await freshGet(`${cgw.url}/_gateway/metrics`);
      assert.is(status, 200, body);
      assert.match(body, new RegExp(`http_request_duration_seconds_count\\{method="GET",route="/api/v3/ping",status="200",release="3\\.12\\.0"\\} ${sent}\n`), `scrape ${i}`);
      if (i === 0) checkExposition(body);
    }
  } finally {
    await cgw.stop();
  }
  const pids = new Set(cgw.output().split('\n').filter((l) => l.includes('"msg":"access"') && l.includes('/api/v3/ping')).map((l) => (JSON.parse(l) as { pid: number }).pid));
  assert.is(pids.size, 2, 'both workers served pings, so the aggregate really spans workers');
});

test.run();
