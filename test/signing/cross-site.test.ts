// Signing mode is not a door for web pages. Without client tokens on loopback, a page a browser
// visits could otherwise make it send "simple" requests (no preflight) that the gateway signs with
// the account's key. Cross-site Origin, Sec-Fetch-Site: cross-site and a rebinding Host are
// refused 403 in the exchange envelope before any signing; nothing reaches the upstream; a signed
// answer never carries Access-Control-Allow-Origin: *.
import { request } from 'node:http';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import type { RunningGateway } from '../../src/server.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { HMAC_KEY, HMAC_SECRET, signingGateway, UPSTREAM_KEYS } from './support.js';

const test = suite('signing mode: cross-site requests');
let upstream: Upstream;
let gw: RunningGateway;
let allowing: RunningGateway;
const ENV = { EXCHANGE_API_KEY: HMAC_KEY, EXCHANGE_API_SECRET: HMAC_SECRET };

test.before(async () => {
  upstream = await startUpstream(UPSTREAM_KEYS);
  gw = await signingGateway(upstream.url, ENV);
  allowing = await signingGateway(upstream.url, ENV, ['--cors-origin', '*', '--cors-origin', 'https://desk.example', '--allowed-host', 'gw.internal']);
});
test.before.each(async () => { await upstream.reset(); });
test.after(async () => {
  await gw.close();
  await allowing.close();
  await upstream.stop();
});

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const ORDER = 'symbol=BNBUSDT&side=BUY&type=MARKET&quantity=1';

/** fetch() may not set Host; node:http may. */
function withHost(url: string, host: string, headers: Record<string, string> = {}): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { ...headers, host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(new Response(Buffer.concat(chunks), { status: res.statusCode, headers: res.headers as Record<string, string> })));
    });
    req.on('error', reject);
    req.end();
  });
}

async function refused(res: Response, what: RegExp): Promise<void> {
  assert.is(res.status, 403);
  const body = await res.json() as { code: number; msg: string };
  assert.is(body.code, -2015);
  assert.match(body.msg, what);
  assert.is(res.headers.get('access-control-allow-origin'), null);
}

test('a cross-site simple POST /api/v3/order (Origin of another site) → 403, never signed or sent', async () => {
  const res = await fetch(`${gw.url}/api/v3/order`, { method: 'POST', headers: { ...FORM, origin: 'https://evil.example' }, body: ORDER });
  await refused(res, /Cross-site request from origin 'https:\/\/evil\.example' refused/);
  assert.is((await upstream.records()).length, 0);
});

test('Sec-Fetch-Site: cross-site without Origin (a GET from an <img>) → 403', async () => {
  const res = await fetch(`${gw.url}/api/v3/account`, { headers: { 'sec-fetch-site': 'cross-site' } });
  await refused(res, /Sec-Fetch-Site: cross-site/);
  assert.is((await upstream.records()).length, 0);
});

test('a rebinding Host (a page whose name now points at 127.0.0.1) → 403', async () => {
  const res = await withHost(`${gw.url}/api/v3/account`, 'evil.example:8080');
  await refused(res, /host 'evil\.example:8080' refused/);
  assert.is((await upstream.records()).length, 0);
});

test('a non-browser client (no Origin, no Sec-Fetch-Site, the Host it dialled) is signed and served', async () => {
  const res = await fetch(`${gw.url}/api/v3/account`);
  assert.is(res.status, 200, await res.clone().text());
  const [rec] = await upstream.records();
  assert.is(rec.verified, true);
});

test('public market data from any origin still gets CORS *; a signed answer never does', async () => {
  const pub = await fetch(`${allowing.url}/api/v3/ping`, { headers: { origin: 'https://any.example' } });
  assert.is(pub.status, 403, 'in signing mode every request of the signed service is guarded');
  const listed = await withHost(`${allowing.url}/api/v3/account`, 'gw.internal:8080', { origin: 'https://desk.example' });
  assert.is(listed.status, 200, await listed.clone().text());
  assert.is(listed.headers.get('access-control-allow-origin'), 'https://desk.example');
  assert.is(listed.headers.get('vary'), 'Origin');
  const tx = await fetch(`${allowing.url}/send_lovelace`, { method: 'OPTIONS', headers: { origin: 'https://any.example', 'access-control-request-method': 'POST' } });
  assert.is(tx.status, 204);
  assert.is(tx.headers.get('access-control-allow-origin'), '*', 'the unsigned transaction service keeps its public CORS');
});

test('a preflight for a signed endpoint grants only the listed origin', async () => {
  const pre = (origin: string) => fetch(`${allowing.url}/api/v3/order`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
  const evil = await pre('https://evil.example');
  assert.is(evil.status, 204);
  assert.is(evil.headers.get('access-control-allow-origin'), null);
  const desk = await pre('https://desk.example');
  assert.is(desk.headers.get('access-control-allow-origin'), 'https://desk.example');
  assert.match(desk.headers.get('access-control-allow-methods')!, /POST/);
  assert.is((await upstream.records()).length, 0);
});

test.run();
