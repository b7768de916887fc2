// During --accept-grace a stopping gateway refuses what it must not start: a websocket upgrade (a
// connection that would outlive it) and POST /_gateway/reload (a program it would never serve) get
// the 503 + Retry-After: 1 + Connection: close of the GETs it leaves to other replicas, never 101 or
// an applied reload.
import { request, type IncomingHttpHeaders } from 'node:http';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { connect, isRefused, startWsUpstream, wsGatewayAt, wsUrl, type WsUpstream } from '../websocket/ws-upstream.js';

const test = suite('hand-over: upgrades and reloads refused like other requests');
let upstream: WsUpstream;

test.before(async () => { upstream = await startWsUpstream(); });
test.after(async () => { await upstream.stop(); });

function once(url: string, method: string): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { method, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    }).on('error', reject).end();
  });
}

test('a stopping gateway answers an upgrade and a reload as it answers a GET: 503, Retry-After, Connection: close', async () => {
  const gw = await wsGatewayAt('3.12.0', upstream, {}, ['--accept-grace', '20000']);
  // Before: upgrades are accepted (the test can fail).
  const before = await connect(`${wsUrl(gw)}/ws-api/v3`);
  assert.ok(!isRefused(before), 'upgraded before the stop');
  before.ws.terminate();
  await upstream.nextConnection();
  const closing = gw.close();
  const get = await once(`${gw.url}/api/v3/ping`, 'GET');
  assert.is(get.status, 503);
  for (const path of ['/ws-api/v3', '/ws/btcusdt@trade']) {
    const up = await connect(`${wsUrl(gw)}${path}`);
    assert.ok(isRefused(up), `${path}: upgraded (101) while stopping`);
    assert.is(up.status, get.status, path);
    assert.is(up.headers['retry-after'], get.headers['retry-after'], path);
    assert.is(up.headers.connection, 'close', path);
    assert.is(up.body.code, -1008, path);
    assert.match(String(up.body.msg), /stopping: a websocket upgrade is left to another replica/);
  }
  const reload = await once(`${gw.url}/_gateway/reload`, 'POST');
  assert.is(reload.status, get.status, reload.body);
  assert.is(reload.headers['retry-after'], get.headers['retry-after']);
  assert.is(reload.headers.connection, 'close');
  assert.match(reload.body, /stopping: a reload is left to another replica/);
  assert.is(upstream.connections.length, 1, 'no upstream connection for the refused upgrades');
  await closing;
});

test.run();
