// HTTP correctness of the one pipeline: HEAD, hop-by-hop headers, forwarding headers, odd request
// targets, odd upstream statuses, prototype-named parameters, hang-ups — none may reach a 500.
import { connect } from 'node:net';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { createLogger } from '../../src/log.js';
import type { RunningGateway } from '../../src/server.js';
import { gatewayAt } from '../support/gateway.js';
import { startUpstream, type Upstream } from '../support/processes.js';

const test = suite('http correctness');
let upstream: Upstream;
let gw: RunningGateway;
const logged: string[] = [];

test.before(async () => {
  upstream = await startUpstream({});
  gw = await gatewayAt('3.12.0', upstream.url, ['--timeout', '2000'], {
    logger: createLogger('debug', (l) => logged.push(l)),
  });
});
test.before.each(async () => { await upstream.reset(); logged.length = 0; });
test.after(async () => {
  await gw.close();
  await upstream.stop();
});

/** Send raw bytes and collect everything the gateway answers until it closes or `ms` pass. */
function raw(text: string, ms = 10_000): Promise<string> {
  const { port } = new URL(gw.url);
  return new Promise((resolve) => {
    const s = connect(Number(port), '127.0.0.1');
    let out = '';
    s.on('data', (d) => { out += d.toString('latin1'); });
    s.on('error', () => {});
    const timer = setTimeout(() => done(), ms);
    const done = () => { clearTimeout(timer); s.destroy(); resolve(out); };
    s.on('close', done);
    s.write(text);
  });
}

test('HEAD /api/v3/ping → 200 with the GET headers and no body', async () => {
  const get = await fetch(`${gw.url}/api/v3/ping`);
  const head = await fetch(`${gw.url}/api/v3/ping`, { method: 'HEAD' });
  assert.is(head.status, 200);
  assert.is(await head.text(), '');
  assert.is(head.headers.get('x-gateway-release'), '3.12.0');
  assert.is(head.headers.get('content-type'), get.headers.get('content-type'));
  const recs = await upstream.records();
  assert.equal(recs.map((r) => r.method), ['GET', 'HEAD']);
});

test('405 lists HEAD beside GET', async () => {
  const res = await fetch(`${gw.url}/api/v3/ping`, { method: 'DELETE' });
  assert.is(res.status, 405);
  assert.is(res.headers.get('allow'), 'GET, HEAD');
});

test('headers named in Connection are not forwarded; X-Forwarded-For and Forwarded are added', async () => {
  const answer = await raw('GET /api/v3/ping HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close, X-Secret-Hop\r\nX-Secret-Hop: 1\r\nX-Kept: 2\r\nX-Forwarded-For: 10.1.1.1\r\n\r\n');
  assert.match(answer, /^HTTP\/1.1 200/);
  const rec = (await upstream.records())[0];
  assert.is(rec.headers['x-secret-hop'], undefined);
  assert.is(rec.headers['x-kept'], '2');
  assert.is(rec.headers['x-forwarded-for'], '10.1.1.1, 127.0.0.1');
  assert.is(rec.headers.forwarded, 'for=127.0.0.1;proto=http');
});

test('a # fragment in the target → 400 in the envelope, never a 500, and nothing forwarded', async () => {
  for (const target of ['/api/v3/order#x', '/api/v3/ping#', '/send_lovelace#frag']) {
    const answer = await raw(`POST ${target} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`);
    assert.match(answer, /^HTTP\/1.1 400/, target);
    assert.match(answer, /fragment/);
  }
  assert.is((await upstream.records()).length, 0);
  assert.not.ok(logged.some((l) => / 500|stack|Error:/.test(l)), logged.join(''));
});

test('absolute-form target is served as its path; other odd targets are 400s', async () => {
  const ok = await raw('GET http://127.0.0.1/api/v3/ping HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
  assert.match(ok, /^HTTP\/1.1 200/);
  assert.is((await upstream.records())[0].url, '/api/v3/ping');
  const bad = await raw('GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.match(bad, /^HTTP\/1.1 400/);
  assert.match(bad, /-1000|Malformed request target/);
});

test('upstream status outside 100–599 → 502 in the envelope', async () => {
  const res = await fetch(`${gw.url}/api/v3/ping`, { headers: { 'x-test-status': '700' } });
  assert.is(res.status, 502);
  const body = await res.json() as { code: number; msg: string };
  assert.is(body.code, -1001);
  assert.match(body.msg, /invalid status 700/);
});

test('upstream Vary is kept and Origin appended', async () => {
  const res = await fetch(`${gw.url}/api/v3/ping`, { headers: { origin: 'https://app.example', 'x-test-vary': 'Accept-Encoding' } });
  assert.is(res.headers.get('vary'), 'Accept-Encoding, Origin');
  assert.is(res.headers.get('access-control-allow-origin'), '*');
});

test('query keys named like Object.prototype members are ordinary parameters', async () => {
  for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    const res = await fetch(`${gw.url}/api/v3/ticker/price?${key}=1`);
    assert.is(res.status, 200, `${key}: ${await res.clone().text()}`);
  }
  const strict = await gatewayAt('3.12.0', upstream.url, ['--strict'], { logger: createLogger('silent') });
  try {
    const res = await fetch(`${strict.url}/api/v3/ticker/price?__proto__=1`);
    assert.is(res.status, 400);
    assert.match((await res.json() as { msg: string }).msg, /Parameter '__proto__' is not part of GET \/api\/v3\/ticker\/price/);
  } finally {
    await strict.close();
  }
});

test('a client hanging up mid-body: no 500, no stack, a debug line at most; nothing forwarded', async () => {
  const { port } = new URL(gw.url);
  await new Promise<void>((resolve) => {
    const s = connect(Number(port), '127.0.0.1', () => {
      s.write('POST /api/v3/order?symbol=BNBUSDT HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nside=BUY');
      setTimeout(() => { s.destroy(); resolve(); }, 100);
    });
    s.on('error', () => {});
  });
  await new Promise((r) => setTimeout(r, 200));
  assert.is((await upstream.records()).length, 0);
  assert.not.ok(logged.some((l) => /"status":500|→ 500|\\n\s+at /.test(l)), logged.join(''));
  assert.not.ok(logged.some((l) => /"level":"(warn|error)"/.test(l)), logged.join(''));
  const after = await fetch(`${gw.url}/api/v3/ping`);
  assert.is(after.status, 200);
});

test.run();
