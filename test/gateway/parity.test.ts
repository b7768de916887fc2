// One pipeline: a proxied endpoint and a builder endpoint given the same YAML facts answer alike —
// security at the pin, required and unknown (--strict) parameters, deprecation headers,
// X-Gateway-Release, CORS (with the upstream's Vary kept), the owning service's error envelope.
// The two endpoints are added to a copy of the catalogue; the builder is a test plugin that echoes.
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { builtinPlugins } from '../../src/builders/registry.js';
import type { BuilderPlugin } from '../../src/builders/plugin.js';
import { createLogger } from '../../src/log.js';
import type { RunningGateway } from '../../src/server.js';
import { API_KEY, gatewayAt } from '../support/gateway.js';
import { ROOT, startGatewayProcess, startUpstream, type Upstream } from '../support/processes.js';
import { tempDir } from '../support/temp.js';

const test = suite('pipeline parity');
let upstream: Upstream;
let gw: RunningGateway;
let dir: string;

const FACTS = `    security: API_KEY
    deprecated: 3.11.0
    replacement: GET /api/v3/ping
    parameters:
      - { name: symbol, required: true, source: test }
      - { name: limit, schema: { type: integer, maximum: 10 }, source: test }`;

test.before(async () => {
  dir = tempDir('parity-');
  cpSync(join(ROOT, 'catalogue'), dir, { recursive: true });
  writeFileSync(join(dir, 'exchange/endpoints/parity.yaml'), `# yaml-language-server: $schema=../../schema/endpoints.schema.json
module: parity
title: Parity twins (test)
endpoints:
  - method: POST
    path: /api/v3/parityProxied
    source: test
${FACTS}
  - method: POST
    path: /api/v3/parityBuilt
    source: test
    builder: echo
    body: { type: object }
${FACTS}
`);
  const service = join(dir, 'exchange/service.yaml');
  writeFileSync(service, `${readFileSync(service, 'utf8')}\nbuilders:\n  - { name: echo, kind: synchronous, summary: echoes its body (test) }\n`);
  upstream = await startUpstream({});
  const echo: BuilderPlugin = async (body) => ({ echoed: body });
  gw = await gatewayAt('3.12.0', upstream.url, ['--catalogue', dir, '--strict', '--cors-origin', 'https://app.example'], {
    logger: createLogger('silent'), plugins: new Map([...builtinPlugins, ['echo', echo]]),
  });
});
test.after(async () => {
  await gw?.close();
  await upstream.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Seen {
  status: number;
  headers: Record<string, string | null>;
  body: unknown;
}

async function both(query: string, headers: Record<string, string>): Promise<[Seen, Seen]> {
  const one = async (path: string): Promise<Seen> => {
    const res = await fetch(`${gw.url}${path}?${query}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"a":1}' });
    const pick = ['x-gateway-release', 'deprecation', 'link', 'access-control-allow-origin', 'www-authenticate'];
    return { status: res.status, headers: Object.fromEntries(pick.map((h) => [h, res.headers.get(h)])), body: await res.json() };
  };
  return [await one('/api/v3/parityProxied'), await one('/api/v3/parityBuilt')];
}

test('no API key: the same 401 in the exchange envelope on both', async () => {
  const [p, b] = await both('symbol=BNBUSDT', {});
  assert.is(p.status, 401);
  assert.equal(b, { ...p, body: { code: -2014, msg: (b.body as { msg: string }).msg } });
  assert.match((p.body as { msg: string }).msg, /API-key required: POST \/api\/v3\/parityProxied is API_KEY at 3\.12\.0/);
  assert.match((b.body as { msg: string }).msg, /API-key required: POST \/api\/v3\/parityBuilt is API_KEY at 3\.12\.0/);
});

test('missing required, unknown under --strict, invalid value: same codes on both; nothing forwarded', async () => {
  await upstream.reset();
  for (const [query, code] of [['limit=1', -1102], ['symbol=X&bogus=1', -1103], ['symbol=X&limit=11', -1130]] as const) {
    const [p, b] = await both(query, { 'X-MBX-APIKEY': API_KEY });
    assert.is(p.status, 400, query);
    assert.is(b.status, 400, query);
    assert.is((p.body as { code: number }).code, code, query);
    assert.is((b.body as { code: number }).code, code, query);
    assert.equal(p.headers, b.headers, query);
  }
  assert.is((await upstream.records()).length, 0);
});

test('accepted: deprecation headers, release, CORS for the listed origin, upstream Vary kept', async () => {
  await upstream.reset();
  const headers = { 'X-MBX-APIKEY': API_KEY, origin: 'https://app.example', 'x-test-vary': 'Accept-Encoding' };
  const [p, b] = await both('symbol=BNBUSDT', headers);
  assert.is(p.status, 200);
  assert.is(b.status, 200);
  assert.equal(b.body, { echoed: { a: 1 } });
  assert.equal(p.headers, b.headers);
  assert.match(p.headers.deprecation!, /^@\d+$/);
  assert.is(p.headers.link, '</api/v3/ping>; rel="successor-version"');
  assert.is(p.headers['x-gateway-release'], '3.12.0');
  assert.is(p.headers['access-control-allow-origin'], 'https://app.example');
  const res = await fetch(`${gw.url}/api/v3/parityProxied?symbol=X`, { method: 'POST', headers });
  assert.is(res.headers.get('vary'), 'Accept-Encoding, Origin');
  const built = await fetch(`${gw.url}/api/v3/parityBuilt?symbol=X`, { method: 'POST', headers, body: '{}' });
  assert.is(built.headers.get('vary'), 'Origin');
});

test('an unlisted origin gets no CORS grant on a keyed endpoint, on both', async () => {
  const [p, b] = await both('symbol=BNBUSDT', { 'X-MBX-APIKEY': API_KEY, origin: 'https://other.example' });
  assert.is(p.headers['access-control-allow-origin'], null);
  assert.is(b.headers['access-control-allow-origin'], null);
});

test('an unknown path only one service could own answers in that service\'s envelope', async () => {
  const exchange = await fetch(`${gw.url}/api/v3/noSuchThing`);
  assert.is(exchange.status, 404);
  assert.is((await exchange.json() as { code: number }).code, -1020);
  assert.is(exchange.headers.get('x-gateway-release'), '3.12.0');
  const txRoute = await fetch(`${gw.url}/send_lovelace/extra`, { method: 'POST' });
  assert.is(txRoute.status, 404);
  const body = await txRoute.json() as { error?: string };
  assert.type(body.error, 'string', 'the transaction service answers {"error"}');
  assert.is(txRoute.headers.get('x-gateway-release'), null, 'the transaction service is not versioned');
});

test('a catalogue the runtime could not serve fails at start-up with file:line problems, all in one pass', async () => {
  const bad = tempDir('parity-bad-');
  try {
    cpSync(join(ROOT, 'catalogue'), bad, { recursive: true });
    writeFileSync(join(bad, 'exchange/endpoints/bad.yaml'), `module: bad
title: bad
endpoints:
  - method: GET
    path: /api/v3/badType
    parameters:
      - { name: n, schema: { type: integr } }
  - method: POST
    path: /api/v3/badBody
    builder: nosuch
`);
    const svc = join(bad, 'tx-examples/service.yaml');
    writeFileSync(svc, readFileSync(svc, 'utf8').replace('envelope: error', 'envelope: error\n  codes:\n    notFuond: 1'));
    const err = await startGatewayProcess(['--catalogue', bad]).then(() => null, (e: Error) => e.message);
    assert.ok(err, 'the gateway must refuse to start');
    assert.match(err!, /exited with 1/);
    assert.match(err!, /bad\.yaml:7: .*integr/);
    assert.match(err!, /bad\.yaml:\d+: .*nosuch/);
    assert.match(err!, /service\.yaml:\d+: .*notFuond/);
  } finally {
    rmSync(bad, { recursive: true, force: true });
  }
});

test.run();
