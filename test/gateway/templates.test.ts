// Any REST API's shape, on a small service written here: templated paths with typed and
// multi-segment parameters, static-before-parameter precedence, lifecycle answers on templates,
// the service's own error envelope, its version header, the client's own Authorization forwarded,
// and Link headers pointed back at the gateway. A local upstream records what reaches it.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { quickStop } from '../support/gateway.js';
import { demoCatalogue, recordingUpstream } from '../support/demo-service.js';
import { readConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';

const test = suite('path templates and service profiles');
let up: Awaited<ReturnType<typeof recordingUpstream>>;
let gw: RunningGateway;
let catalogue: string;

async function start(extra: string[] = []): Promise<RunningGateway> {
  const args = ['--port', '0', '--catalogue', catalogue, '--release', 'all', '--upstream', `demo=${up.url}`, ...quickStop(extra), ...extra];
  return startGateway(readConfig(args, {}), { logger: createLogger('silent') });
}

test.before(async () => {
  catalogue = demoCatalogue();
  up = await recordingUpstream();
  gw = await start();
});
test.after(async () => {
  await gw.close();
  await new Promise((r) => up.server.close(r));
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${gw.url}${path}`, { headers });

test('a typed path parameter is checked by name in the service envelope, nothing sent upstream', async () => {
  up.seen.length = 0;
  const res = await get('/repos/o/r/issues/abc');
  assert.is(res.status, 400);
  const body = await res.json() as { message: string; documentation_url: string; status: string };
  assert.match(body.message, /'abc' for parameter 'issue_number' of GET \/repos\/\{owner\}\/\{repo\}\/issues\/\{issue_number\} at r2/);
  assert.is(body.documentation_url, 'https://docs.demo.test/rest');
  assert.is(body.status, '400');
  assert.equal(up.seen, []);
});

test('a concrete path of a template is forwarded byte for byte', async () => {
  up.seen.length = 0;
  const res = await get('/repos/o%2Dx/r.js/issues/7?page=2');
  assert.is(res.status, 200);
  assert.is(up.seen.length, 1);
  assert.is(up.seen[0].url, '/repos/o%2Dx/r.js/issues/7?page=2');
  assert.is(res.headers.get('x-gateway-release'), 'r2');
});

test('a static segment wins over a parameter; other methods still find the template', async () => {
  up.seen.length = 0;
  assert.is((await get('/gists/public')).status, 200);
  assert.is((await fetch(`${gw.url}/gists/public`, { method: 'PATCH' })).status, 200); // PATCH has only the template
  const post = await fetch(`${gw.url}/gists/public`, { method: 'POST' });
  assert.is(post.status, 405);
  assert.match(post.headers.get('allow') ?? '', /GET/);
  assert.match(post.headers.get('allow') ?? '', /PATCH/);
  assert.equal(up.seen.map((s) => `${s.method} ${s.url}`), ['GET /gists/public', 'PATCH /gists/public']);
});

test('a multi-segment parameter takes the slashes of a file path', async () => {
  up.seen.length = 0;
  assert.is((await get('/repos/o/r/contents/src/lib/a.ts')).status, 200);
  assert.is(up.seen[0].url, '/repos/o/r/contents/src/lib/a.ts');
  assert.is((await get('/repos/o/r/contents/')).status, 404); // a parameter is never empty
});

test('lifecycle answers on templates: 410 naming the release, 404 for an unknown template, nothing sent', async () => {
  up.seen.length = 0;
  const gone = await get('/orgs/acme/usage');
  assert.is(gone.status, 410);
  assert.match((await gone.json() as { message: string }).message, /GET \/orgs\/\{org\}\/usage was removed in r2/);
  const old = await get('/@r1/orgs/acme/usage'); // in front of an upstream at r2: refused, never sent
  assert.is(old.status, 410);
  assert.match((await old.json() as { message: string }).message, /removed in r2.*GET \/orgs\/\{org\}\/metrics/);
  const unknown = await get('/nothing/here');
  assert.is(unknown.status, 404);
  assert.is((await unknown.json() as { status: string }).status, '404');
  assert.equal(up.seen, []);
});

test('the upstream still speaking the old release gets the removed operation', async () => {
  const old = await start(['--upstream-release', 'demo=r1']);
  try {
    up.seen.length = 0;
    const res = await fetch(`${old.url}/@r1/orgs/acme/usage`);
    assert.is(res.status, 200);
    assert.is(up.seen[0].url, '/orgs/acme/usage');
  } finally { await old.close(); }
});

test('the version header picks the release; an unknown value is refused naming the supported ones', async () => {
  up.seen.length = 0;
  assert.is((await get('/gists/1')).headers.get('x-gateway-release'), 'r2');
  assert.is((await get('/gists/1', { 'X-Demo-Api-Version': '2022-11-28' })).headers.get('x-gateway-release'), 'r2');
  const bad = await get('/gists/1', { 'X-Demo-Api-Version': '2099-01-01' });
  assert.is(bad.status, 400);
  assert.match((await bad.json() as { message: string }).message, /X-Demo-Api-Version '2099-01-01' is not a supported version; supported: 2022-11-28/);
  // The gateway's own choice wins, and the upstream is sent the value it speaks, never the client's.
  assert.is((await get('/gists/1', { 'X-Gateway-Release': 'r1', 'X-Demo-Api-Version': '2022-11-28' })).headers.get('x-gateway-release'), 'r1');
  assert.equal(up.seen.map((s) => s.headers['x-demo-api-version']), ['2022-11-28', '2022-11-28', '2022-11-28']);
  assert.is(up.seen[2].headers['x-gateway-release'], undefined);
});

test("the client's own Authorization reaches the upstream unchanged", async () => {
  up.seen.length = 0;
  await get('/gists/1', { Authorization: 'token ghp_abcdefghijklmnopqrstuvwxyz0123456789' });
  assert.is(up.seen[0].headers.authorization, 'token ghp_abcdefghijklmnopqrstuvwxyz0123456789');
});

test('Link headers point back at the gateway, with the release prefix the request had', async () => {
  const plain = (await get('/repos/o/r/issues')).headers.get('link')!;
  const host = new URL(gw.url).host;
  assert.match(plain, `<http://${host}/repositories/1/issues?page=2>; rel="next"`);
  assert.match(plain, `<http://${host}/repositories/1/issues?page=9>; rel="last"`);
  assert.match(plain, '<https://elsewhere.test/x>; rel="help"'); // not the upstream's: left alone
  const pinned = (await get('/@r1/repos/o/r/issues')).headers.get('link')!;
  assert.match(pinned, `<http://${host}/@r1/repositories/1/issues?page=2>`);
});

test('a JSON body is checked field by field at the release: required, types, fields of another release', async () => {
  up.seen.length = 0;
  const post = (body: string, path = '/repos/o/r/issues') => fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const missing = await post('{"labels":["bug"]}');
  assert.is(missing.status, 400);
  assert.match((await missing.json() as { message: string }).message, "field 'title' is required");
  const typed = await post('{"title":"t","labels":"bug"}');
  assert.match((await typed.json() as { message: string }).message, "field 'labels' must be array");
  const gone = await post('{"title":"t","milestone":3}');
  assert.is(gone.status, 400);
  assert.match((await gone.json() as { message: string }).message, "Field 'milestone' is not part of POST /repos/{owner}/{repo}/issues at r2: removed in r2");
  const old = await post('{"title":"t","milestone":3}', '/@r1/repos/o/r/issues'); // r1 had it; the upstream at r2 does not
  assert.is(old.status, 410);
  assert.equal(up.seen, []);
  const ok = await post('{"title":"t","labels":["bug"],"extra":1}');
  assert.is(ok.status, 200); // fields the catalogue does not know pass, as the upstream ignores them
  assert.is(up.seen[0].url, '/repos/o/r/issues');
  const lock = await fetch(`${gw.url}/repos/o/r/lock`, { method: 'PUT' }); // no required field: the body may be left out
  assert.is(lock.status, 200);
});

test.run();
