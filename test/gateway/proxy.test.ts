// The upstream proxy: exact bytes out, upstream answers back, transport failures in the envelope.
import { request } from 'node:http';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { createLogger } from '../../src/log.js';
import type { RunningGateway } from '../../src/server.js';
import { API_KEY, SECRET, gatewayAt, signed, ts } from '../support/gateway.js';
import { startUpstream, type Upstream } from '../support/processes.js';

const test = suite('gateway proxy');
let upstream: Upstream;
let gw: RunningGateway;

test.before(async () => {
  upstream = await startUpstream({ [API_KEY]: { hmac: SECRET } });
  gw = await gatewayAt('3.12.0', upstream.url, ['--timeout', '2000', '--body-limit', '4096']);
});
test.before.each(async () => { await upstream.reset(); });
test.after(async () => {
  await gw.close();
  await upstream.stop();
});

test('signed GET arrives byte-identical and verifies', async () => {
  // Encodings a re-encoding proxy would change: lower-case hex, %5D vs ], + vs %20.
  const q2 = signed(`omitZeroBalances=true&x=%5b%22a%22%5D+b&${ts()}`);
  const ok = await fetch(`${gw.url}/api/v3/account?${q2}`, { headers: { 'X-MBX-APIKEY': API_KEY, 'User-Agent': 'test-agent/1.0' } });
  assert.is(ok.status, 200, await ok.clone().text());
  const recs = await upstream.records();
  const rec = recs.at(-1)!;
  assert.is(rec.url, `/api/v3/account?${q2}`);
  assert.is(rec.verified, true);
  assert.is(rec.headers['x-mbx-apikey'], API_KEY);
  assert.is(rec.headers['user-agent'], 'test-agent/1.0');
});

test('signed POST with a form body: body forwarded as is, signature over query + body verifies', async () => {
  const query = ts();
  const body = 'symbol=BNBUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=1&price=350.5';
  const sigQuery = signed(query, body);
  const res = await fetch(`${gw.url}/api/v3/order?${sigQuery}`, {
    method: 'POST', body, headers: { 'X-MBX-APIKEY': API_KEY, 'Content-Type': 'application/x-www-form-urlencoded' },
  });
  assert.is(res.status, 200, await res.clone().text());
  const [rec] = await upstream.records();
  assert.is(rec.body, body);
  assert.is(rec.url, `/api/v3/order?${sigQuery}`);
  assert.is(rec.verified, true);
});

test('a form body is validated too', async () => {
  const body = 'symbol=BNBUSDT&side=BUY&type=MARKET&quantity=1&strategyType=5';
  const res = await fetch(`${gw.url}/api/v3/order?${signed(ts(), body)}`, {
    method: 'POST', body, headers: { 'X-MBX-APIKEY': API_KEY, 'Content-Type': 'application/x-www-form-urlencoded' },
  });
  assert.is(res.status, 400);
  assert.match(((await res.json()) as { msg: string }).msg, /strategyType/);
  assert.equal(await upstream.records(), []);
});

test('a bad signature is the upstream\'s answer, passed back unchanged', async () => {
  const res = await fetch(`${gw.url}/api/v3/account?${ts()}&signature=deadbeef`, { headers: { 'X-MBX-APIKEY': API_KEY } });
  assert.is(res.status, 400);
  assert.is(((await res.json()) as { code: number }).code, -1022);
});

test('upstream status and headers come back (weight, Retry-After, content-type)', async () => {
  const res = await fetch(`${gw.url}/api/v3/ping`);
  assert.is(res.status, 200);
  assert.ok(res.headers.get('x-mbx-used-weight-1m'));
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  assert.is(res.headers.get('x-gateway-release'), '3.12.0');
});

test('large and unknown-length answers are streamed through intact', async () => {
  for (const [headers, chunked] of [[{ 'x-test-body-bytes': String(3 * 1024 * 1024) }, false], [{ 'x-test-body-bytes': '700001', 'x-test-chunked': '1' }, true]] as const) {
    const res = await fetch(`${gw.url}/api/v3/ping`, { headers });
    assert.is(res.status, 200);
    const body = Buffer.from(await res.arrayBuffer());
    const want = Buffer.alloc(Number(headers['x-test-body-bytes']), 'abcdefghij');
    assert.is(body.length, want.length);
    assert.ok(body.equals(want), 'bytes intact');
    assert.is(res.headers.get('content-length'), chunked ? null : String(want.length));
    assert.is(res.headers.get('x-gateway-release'), '3.12.0');
  }
});

test('hop-by-hop and Authorization headers are not forwarded', async () => {
  const res = await fetch(`${gw.url}/api/v3/ping`, { headers: { Authorization: 'Bearer secret-token', 'Proxy-Authorization': 'x', TE: 'trailers', 'X-Custom': 'kept' } });
  assert.is(res.status, 200);
  const [rec] = await upstream.records();
  assert.is(rec.headers.authorization, undefined);
  assert.is(rec.headers['proxy-authorization'], undefined);
  assert.is(rec.headers.te, undefined);
  assert.is(rec.headers['x-custom'], 'kept');
});

test('upstream slower than the timeout → 504 in the envelope', async () => {
  const res = await fetch(`${gw.url}/api/v3/ping`, { headers: { 'x-test-delay-ms': '3500' } });
  assert.is(res.status, 504);
  const body = await res.json() as { code: number; msg: string };
  assert.is(body.code, -1007);
  assert.match(body.msg, /no answer within the gateway's deadline of 2000 ms/);
});

test('upstream unreachable → 502 in the envelope, and the gateway keeps serving', async () => {
  const dead = await gatewayAt('3.12.0', 'http://127.0.0.1:9');
  try {
    const res = await fetch(`${dead.url}/api/v3/ping`);
    assert.is(res.status, 502);
    const body = await res.json() as { code: number; msg: string };
    assert.is(body.code, -1001);
    assert.match(body.msg, /unreachable/);
    const again = await fetch(`${dead.url}/_gateway/health`);
    assert.is(again.status, 200);
  } finally { await dead.close(); }
});

test('body over the limit → 413', async () => {
  const body = `symbol=BNBUSDT&${'x'.repeat(5000)}=1`;
  const res = await fetch(`${gw.url}/api/v3/order?${signed(ts(), body)}`, {
    method: 'POST', body, headers: { 'X-MBX-APIKEY': API_KEY, 'Content-Type': 'application/x-www-form-urlencoded' },
  });
  assert.is(res.status, 413);
  assert.match(((await res.json()) as { msg: string }).msg, /4096/);
  assert.equal(await upstream.records(), []);
});

test('CORS: preflight answered, allow-origin on answers', async () => {
  const pre = await fetch(`${gw.url}/api/v3/klines`, { method: 'OPTIONS', headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET' } });
  assert.is(pre.status, 204);
  assert.ok(pre.headers.get('access-control-allow-methods')?.includes('GET'));
  const res = await fetch(`${gw.url}/api/v3/ping`, { headers: { Origin: 'https://app.example' } });
  assert.is(res.headers.get('access-control-allow-origin'), '*');
  assert.match(res.headers.get('access-control-expose-headers') ?? '', /X-Gateway-Release/);
});

test('a client that disconnects aborts the upstream request, quietly; the gateway keeps serving', async () => {
  const lines: string[] = [];
  const quietGw = await gatewayAt('3.12.0', upstream.url, [], { logger: createLogger('debug', (l) => lines.push(l)) });
  try {
    const u = new URL(quietGw.url);
    await new Promise<void>((resolve) => {
      const req = request({ host: u.hostname, port: u.port, path: '/api/v3/ping', headers: { 'x-test-delay-ms': '400' } });
      req.on('error', () => resolve());
      req.end();
      setTimeout(() => { req.destroy(); resolve(); }, 100);
    });
    await new Promise((r) => setTimeout(r, 200));
    const [rec] = await upstream.records();
    assert.is(rec.url, '/api/v3/ping');
    assert.is(rec.aborted, true, 'the upstream saw its request closed before answering');
    const res = await fetch(`${quietGw.url}/api/v3/ping`);
    assert.is(res.status, 200);
    assert.equal(lines.filter((l) => /"level":"(warn|error)"/.test(l)), [], 'no error spam');
  } finally { await quietGw.close(); }
});

test('admin routes: health, catalogue, openapi, metrics', async () => {
  const health = await (await fetch(`${gw.url}/_gateway/health`)).json() as { status: string };
  assert.is(health.status, 'ok');
  const cat = await (await fetch(`${gw.url}/_gateway/catalogue`)).json() as { service: string; release: { id: string } | null; endpoints: { path: string }[] }[];
  const ex = cat.find((s) => s.service === 'exchange')!;
  assert.is(ex.release!.id, '3.12.0');
  assert.ok(ex.endpoints.some((e) => e.path === '/api/v3/orderList/otoco'));
  assert.not.ok(ex.endpoints.some((e) => e.path === '/sapi/v1/margin/loan'));
  const oas = await (await fetch(`${gw.url}/_gateway/openapi.json`)).json() as { openapi: string; paths: Record<string, unknown> };
  assert.is(oas.openapi, '3.1.0');
  assert.ok(oas.paths['/api/v3/klines']);
  const metrics = await (await fetch(`${gw.url}/_gateway/metrics`)).text();
  assert.match(metrics, /http_request_duration_seconds_count\{method="GET",route="\/api\/v3\/ping",status="200",release="3\.12\.0"\} \d+/);
});

test.run();
