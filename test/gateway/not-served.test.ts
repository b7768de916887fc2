// Endpoints a service's not-served.yaml lists: refused 404 in the service's envelope, naming that the
// gateway deliberately does not serve them, the reason and the endpoint to use instead, at every
// release, never forwarded and never counted as drift; the router's one precedence decides between
// them and the catalogue's templates.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { DEFAULT_CATALOGUE_DIR, loadCatalogue } from '../../src/catalogue/load.js';
import { findService } from '../../src/catalogue/resolve.js';
import { readConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';
import { API_KEY, SECRET, gatewayAt, quickStop, signed, ts } from '../support/gateway.js';
import { demoCatalogue, recordingUpstream } from '../support/demo-service.js';
import { newestExchangeRelease } from '../support/newest.js';
import { startUpstream, type Upstream } from '../support/processes.js';

const test = suite('endpoints not served');
const exchange = findService(loadCatalogue(DEFAULT_CATALOGUE_DIR).catalogue, 'exchange');
const listed = (key: string) => exchange.notServed.find((n) => n.key === key)!;
let upstream: Upstream;
let gw: RunningGateway;

test.before(async () => {
  upstream = await startUpstream({ [API_KEY]: { hmac: SECRET } });
  gw = await gatewayAt(newestExchangeRelease(), upstream.url);
});
test.after(async () => {
  await gw?.close();
  await upstream?.stop();
});

const call = (g: RunningGateway, method: string, path: string) =>
  fetch(`${g.url}${path}?${signed(`asset=ETH&${ts()}`)}`, { method, headers: { 'X-MBX-APIKEY': API_KEY } });

test('a listed endpoint → 404 -1020 naming the refusal, its reason and the endpoint to use instead; nothing forwarded', async () => {
  await upstream.reset();
  const n = listed('GET /sapi/v1/eth-staking/account');
  const res = await call(gw, 'GET', '/sapi/v1/eth-staking/account');
  assert.is(res.status, 404);
  assert.is(res.headers.get('x-gateway-release'), newestExchangeRelease());
  const body = await res.json() as { code: number; msg: string };
  assert.is(body.code, -1020);
  assert.is(body.msg, `GET /sapi/v1/eth-staking/account is deliberately not served by this gateway: ${n.reason}; use GET /sapi/v2/eth-staking/account instead.`);
  // one without a replacement names none; HEAD of a listed GET is refused alike
  const broker = await call(gw, 'POST', '/sapi/v1/broker/subAccount');
  assert.is(broker.status, 404);
  assert.is((await broker.json() as { msg: string }).msg, `POST /sapi/v1/broker/subAccount is deliberately not served by this gateway: ${listed('POST /sapi/v1/broker/subAccount').reason}.`);
  const head = await fetch(`${gw.url}/sapi/v1/broker/info`, { method: 'HEAD' });
  assert.is(head.status, 404);
  assert.equal(await upstream.records(), []);
  // deliberate, reviewed: not an operation the catalogue lacks
  const drift = await (await fetch(`${gw.url}/_gateway/drift`)).json() as { unknownOperations: { entries: { operation: string }[] } };
  assert.equal(drift.unknownOperations.entries.filter((e) => e.operation.includes('/sapi/v1/')), []);
});

test('at an old release too: the reason is not a fact of one release', async () => {
  const old = await gatewayAt('3.12.0', upstream.url);
  try {
    const res = await call(old, 'GET', '/sapi/v1/apiReferral/ifNewUser');
    assert.is(res.status, 404);
    assert.is(res.headers.get('x-gateway-release'), '3.12.0');
    assert.match((await res.json() as { msg: string }).msg, /deliberately not served by this gateway: Binance Link API referral programme/);
  } finally {
    await old.close();
  }
});

const DEMO_NOT_SERVED = `# yaml-language-server: $schema=../schema/not-served.schema.json
endpoints:
  - { method: GET, path: /gists/starred, replacement: GET /gists/public, reason: starring is the client's own, source: written for this test }
  - { method: DELETE, path: '/gists/{id}', reason: deleting a gist is not offered here, source: written for this test }
`;

test('the router\'s precedence: a listed static path wins over a served template, a listed template over 405', async () => {
  const dir = demoCatalogue();
  writeFileSync(join(dir, 'demo', 'not-served.yaml'), DEMO_NOT_SERVED);
  const up = await recordingUpstream();
  const demo = await startGateway(readConfig(['--port', '0', '--catalogue', dir, '--upstream', `demo=${up.url}`, ...quickStop([])], {}), { logger: createLogger('silent') });
  try {
    const starred = await fetch(`${demo.url}/gists/starred`);
    assert.is(starred.status, 404);
    const body = await starred.json() as { message: string; status: string };
    assert.is(body.message, "GET /gists/starred is deliberately not served by this gateway: starring is the client's own; use GET /gists/public instead.");
    assert.is(body.status, '404');
    const del = await fetch(`${demo.url}/gists/abc`, { method: 'DELETE' });
    assert.is(del.status, 404);
    assert.match((await del.json() as { message: string }).message, /^DELETE \/gists\/\{id\} is deliberately not served by this gateway: deleting a gist/);
    assert.equal(up.seen, [], 'nothing forwarded');
    const served = await fetch(`${demo.url}/gists/abc`);
    assert.is(served.status, 200, 'the template still serves every other gist');
    const post = await fetch(`${demo.url}/gists/abc`, { method: 'POST' });
    assert.is(post.status, 405, 'a method neither served nor listed is still 405');
    assert.is(post.headers.get('allow'), 'GET, PATCH, HEAD');
  } finally {
    await demo.close();
    await new Promise((r) => up.server.close(r));
  }
});

test.run();
