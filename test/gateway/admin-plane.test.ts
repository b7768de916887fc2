// The admin plane against a web page: a page can make a browser POST a form or GET an image at
// 127.0.0.1, or rebind its own host name to it. None of that may reload the gateway or read its admin
// answers; reload storms are coalesced; --admin-reload says who may reload over HTTP.
import { request, type ClientRequest } from 'node:http';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { readConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';
import { gatewayAt } from '../support/gateway.js';
import { startUpstream, type Upstream } from '../support/processes.js';

const test = suite('admin plane');
let upstream: Upstream;
let gw: RunningGateway;
test.before(async () => {
  upstream = await startUpstream();
  gw = await gatewayAt('3.12.0', upstream.url);
});
test.after(async () => { await gw.close(); await upstream.stop(); });

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

/** The answer to `req` (status, headers, body); a request that times out fails. */
function answerOf(req: ClientRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
  });
}

/** A raw request (fetch cannot set Host or Sec-Fetch-Site); resolves with status, headers and body. */
function raw(url: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  const u = new URL(url);
  const req = request({ host: u.hostname, port: u.port, method, path, headers, timeout: 5000 });
  const answer = answerOf(req);
  req.end(body);
  return answer;
}

/**
 * `n` POST /_gateway/reload sent at once: every connection is open before any request is written,
 * then all are written in one go, so they reach the gateway together. (With fetch, on a loaded
 * machine, connections opened one by one while a reload already ran and ended: a third run.)
 */
async function storm(url: string, n: number): Promise<Answer[]> {
  const u = new URL(url);
  const reqs = Array.from({ length: n }, () => request({ host: u.hostname, port: u.port, method: 'POST', path: '/_gateway/reload', agent: false, timeout: 30_000 }));
  const answers = reqs.map(answerOf);
  await Promise.all(reqs.map((req) => new Promise<void>((resolve, reject) => {
    req.once('socket', (socket) => socket.once('connect', () => resolve()));
    req.once('error', reject);
  })));
  for (const req of reqs) req.end();
  return Promise.all(answers);
}

const reloads = async () => (await fetch(`${gw.url}/_gateway/metrics`, { signal: AbortSignal.timeout(5000) }).then((r) => r.text())).match(/^gateway_reloads_applied_total (\d+)/m)?.[1];

test('a cross-site page cannot reload: foreign Origin, Sec-Fetch-Site, form and text bodies, a rebinding Host', async () => {
  const before = await reloads();
  const host = new URL(gw.url).host;
  const tries: [Record<string, string>, string | undefined, number, RegExp][] = [
    [{ origin: 'https://evil.example', host }, undefined, 403, /Cross-site request from origin 'https:\/\/evil\.example' refused: the admin routes/],
    [{ 'sec-fetch-site': 'cross-site', host }, undefined, 403, /Sec-Fetch-Site: cross-site/],
    [{ 'content-type': 'application/x-www-form-urlencoded', host }, 'a=1', 415, /form post/],
    [{ 'content-type': 'text/plain', host }, 'x', 415, /text\/plain/],
    [{ host: `rebind.evil.example:${new URL(gw.url).port}` }, undefined, 403, /host 'rebind\.evil\.example:\d+' refused/],
  ];
  for (const [headers, body, status, message] of tries) {
    const r = await raw(gw.url, 'POST', '/_gateway/reload', headers, body);
    assert.is(r.status, status, JSON.stringify(headers));
    assert.match(JSON.parse(r.body).error, message);
  }
  assert.is(await reloads(), before, 'no reload was carried out');
  // The same page reading admin answers by a rebound name: refused too.
  for (const path of ['/_gateway/metrics', '/_gateway/catalogue', '/_gateway/health', '/_gateway/openapi.json']) {
    assert.is((await raw(gw.url, 'GET', path, { host: 'rebind.evil.example' })).status, 403, path);
  }
  // The operator's own tools: no Origin, the loopback name or an IP literal (a probe by address).
  assert.is((await raw(gw.url, 'POST', '/_gateway/reload', { host })).status, 200);
  assert.is((await raw(gw.url, 'GET', '/_gateway/health', { host: '10.1.2.3:8080' })).status, 200, 'an IP-literal Host is no rebinding');
  assert.is((await raw(gw.url, 'GET', '/_gateway/ready', { host: 'gateway.internal' })).status, 200, 'readiness answers any Host');
});

test('admin answers grant no CORS read, even with --cors-origin *', async () => {
  const host = new URL(gw.url).host;
  for (const path of ['/_gateway/health', '/_gateway/metrics', '/_gateway/catalogue', '/_gateway/openapi.json']) {
    const r = await raw(gw.url, 'GET', path, { host, origin: `http://${host}` });
    assert.is(r.status, 200, path);
    assert.is(r.headers['access-control-allow-origin'], undefined, path);
  }
  // A catalogue route still grants public answers to any origin.
  const api = await raw(gw.url, 'GET', '/api/v3/ping', { host, origin: 'https://app.example' });
  assert.is(api.headers['access-control-allow-origin'], '*');
});

test('a request forwarded by a proxy on this machine is not a loopback client', async () => {
  const host = new URL(gw.url).host;
  for (const h of [{ 'x-forwarded-for': '203.0.113.9' }, { forwarded: 'for=203.0.113.9' }, { 'x-real-ip': '203.0.113.9' }] as Record<string, string>[]) {
    const r = await raw(gw.url, 'POST', '/_gateway/reload', { host, ...h });
    assert.is(r.status, 403, JSON.stringify(h));
    assert.match(JSON.parse(r.body).error, /loopback clients that came through no proxy/);
  }
});

test('a reload storm is coalesced: one running, one pending, every caller told the outcome', async () => {
  const before = Number(await reloads());
  const answers = (await storm(gw.url, 40)).map((a) => ({ status: a.status, body: JSON.parse(a.body) as { ok: boolean; at: string; trigger: string } }));
  for (const a of answers) assert.is(a.status, 200);
  const runs = new Set(answers.map((a) => a.body.at));
  assert.ok(runs.size <= 2, `40 requests ran ${runs.size} reloads`);
  assert.is(Number(await reloads()) - before, runs.size);
  assert.ok(answers.some((a) => /and \d+ more asking while one ran/.test(a.body.trigger)), 'the pending reload names the requests it stands for');
});

test('--admin-reload off refuses every HTTP reload; token needs a tokens file', async () => {
  const off = await startGateway(readConfig(['--port', '0', '--upstream', `exchange=${upstream.url}`, '--admin-reload', 'off'], {}), { logger: createLogger('silent') });
  try {
    const r = await fetch(`${off.url}/_gateway/reload`, { method: 'POST', signal: AbortSignal.timeout(5000) });
    assert.is(r.status, 403);
    assert.match(((await r.json()) as { error: string }).error, /reload over HTTP is off \(--admin-reload off\); send SIGHUP/);
    assert.is((await off.reload('SIGHUP')).ok, true, 'a signal still reloads');
  } finally {
    await off.close();
  }
  let message = '';
  try { await startGateway(readConfig(['--port', '0', '--admin-reload', 'token'], {}), { logger: createLogger('silent') }); } catch (e) { message = (e as Error).message; }
  assert.match(message, /--admin-reload token needs client tokens with the admin right/);
});

test.run();
