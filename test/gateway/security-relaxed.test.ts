// A security requirement relaxed at a release, as the release import writes it: GET
// /sapi/v1/spot/delist-schedule is SIGNED until 2026.08.21 and API_KEY from it. The call as
// @binance/wallet 16.0.2 sends it (its key, recvWindow when given, no timestamp or signature) is
// forwarded at 2026.08.21 and refused at 2026.07.01 naming the missing parameter; a signed call
// passes at both (the relaxation breaks no older client).
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import type { RunningGateway } from '../../src/server.js';
import { API_KEY, SECRET, gatewayAt, signed, ts } from '../support/gateway.js';
import { startUpstream, type Upstream } from '../support/processes.js';

const test = suite('a security requirement relaxed at a release');
const PATH = '/sapi/v1/spot/delist-schedule';
const KEY = { 'X-MBX-APIKEY': API_KEY };
let upstream: Upstream;
let gw: RunningGateway;

test.before(async () => {
  upstream = await startUpstream({ [API_KEY]: { hmac: SECRET } });
  gw = await gatewayAt('2026.07.01,2026.08.21', upstream.url);
});
test.before.each(async () => { await upstream.reset(); });
test.after(async () => {
  await gw?.close();
  await upstream?.stop();
});

interface Answer { status: number; body: string; release: string | null }

/** The same request pinned by /@<release>/ and by the release header: both must answer alike. */
async function at(release: string, query: string, headers: Record<string, string> = KEY): Promise<Answer> {
  const ask = async (url: string, h: Record<string, string>): Promise<Answer> => {
    const res = await fetch(url, { headers: h });
    return { status: res.status, body: await res.text(), release: res.headers.get('x-gateway-release') };
  };
  const q = query ? `?${query}` : '';
  const byPrefix = await ask(`${gw.url}/@${release}${PATH}${q}`, headers);
  const byHeader = await ask(`${gw.url}${PATH}${q}`, { ...headers, 'X-Gateway-Release': release });
  assert.equal(byHeader, byPrefix, `${release}: prefix and header differ`);
  assert.is(byPrefix.release, release);
  return byPrefix;
}

test('unsigned, as @binance/wallet 16.0.2 sends it: forwarded at 2026.08.21 with its key and without a signature', async () => {
  for (const query of ['', 'recvWindow=5000']) {
    const a = await at('2026.08.21', query);
    assert.is(a.status, 200, a.body);
  }
  const records = await upstream.records();
  assert.equal(records.map((r) => [r.url, r.headers['x-mbx-apikey'], r.verified]), [
    [PATH, API_KEY, null], [PATH, API_KEY, null], [`${PATH}?recvWindow=5000`, API_KEY, null], [`${PATH}?recvWindow=5000`, API_KEY, null],
  ]);
});

test('unsigned at 2026.07.01, where it is SIGNED: 400 naming timestamp, nothing forwarded', async () => {
  const a = await at('2026.07.01', 'recvWindow=5000');
  assert.is(a.status, 400);
  const body = JSON.parse(a.body) as { code: number; msg: string };
  assert.is(body.code, -1102);
  assert.match(body.msg, /Mandatory parameter 'timestamp' was not sent.*GET \/sapi\/v1\/spot\/delist-schedule at 2026\.07\.01/);
  assert.equal(await upstream.records(), []);
});

test('signed, as older clients send it: forwarded and verified at both releases', async () => {
  for (const release of ['2026.07.01', '2026.08.21']) {
    const a = await at(release, signed(`recvWindow=5000&${ts()}`));
    assert.is(a.status, 200, `${release}: ${a.body}`);
  }
  assert.equal((await upstream.records()).map((r) => r.verified), [true, true, true, true]);
});

test('without a key at 2026.08.21: 401 naming the header (API_KEY, not NONE)', async () => {
  const a = await at('2026.08.21', '', {});
  assert.is(a.status, 401);
  assert.match(JSON.parse(a.body).msg, /spot\/delist-schedule is API_KEY at 2026\.08\.21; send it in the X-MBX-APIKEY header/);
  assert.equal(await upstream.records(), []);
});

test.run();
