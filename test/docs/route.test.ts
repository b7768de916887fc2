// docsRoute over real HTTP (a plain node:http server on 127.0.0.1): the pages carry a CSP that keeps
// every request on the gateway's origin, only the named files are served, bad queries are refused
// with a message that names the value and the choices, and a pin of several releases gets one
// OpenAPI document per release.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { resolveService } from '../../src/catalogue/resolve.js';
import { toAsyncApi } from '../../src/catalogue/to-asyncapi.js';
import { CSP, docsRoute } from '../../src/docs/index.js';
import { startDocsServer, type DocsServer } from './docs-server.js';

const test = suite('docs routes');
let server: DocsServer;

test.before(async () => {
  server = await startDocsServer({ all: '3.12.0', byService: {} });
});
test.after(async () => {
  await server?.close();
});

const get = (path: string) => fetch(`${server.url}${path}`, { redirect: 'manual' });

test("the pages' CSP allows nothing but the gateway's own origin", async () => {
  for (const path of ['/_gateway/docs', '/_gateway/releases']) {
    const r = await get(path);
    assert.is(r.status, 200, path);
    assert.is(r.headers.get('content-security-policy'), CSP);
    assert.match(r.headers.get('content-type')!, 'text/html');
  }
  const directives = CSP.split('; ');
  assert.ok(directives.includes("default-src 'none'"));
  for (const d of directives.filter((x) => !x.startsWith('default-src') && !x.startsWith('base-uri') && !x.startsWith('frame-ancestors'))) {
    const sources = d.split(' ').slice(1);
    assert.ok(sources.every((s) => ["'self'", "'unsafe-inline'", 'data:'].includes(s)), `${d} allows more than the origin`);
  }
});

test('the docs files: Swagger UI from swagger-ui-dist, our own script and styles; nothing else', async () => {
  const expected: Record<string, string> = {
    'swagger-ui-bundle.js': 'text/javascript', 'swagger-ui.css': 'text/css', 'init.js': 'text/javascript', 'docs.css': 'text/css', 'favicon-32x32.png': 'image/png',
  };
  for (const [name, type] of Object.entries(expected)) {
    const r = await get(`/_gateway/docs/${name}`);
    assert.is(r.status, 200, name);
    assert.match(r.headers.get('content-type')!, type);
    assert.ok((await r.arrayBuffer()).byteLength > 100, name);
  }
  const bundle = await (await get('/_gateway/docs/swagger-ui-bundle.js')).text();
  assert.not.match(bundle, /sourceMappingURL=\S+\s*$/, 'a source map the gateway does not serve is referenced');
  for (const path of ['/_gateway/docs/package.json', '/_gateway/docs/index.html', '/_gateway/docs/%2e%2e%2fpackage.json', '/_gateway/docs/openapi/9.9.9.json']) {
    assert.is((await get(path)).status, 404, path);
  }
  const slash = await get('/_gateway/docs/');
  assert.is(slash.status, 301);
  assert.is(new URL(slash.headers.get('location')!, `${server.url}/_gateway/docs/`).pathname, '/_gateway/docs');
  assert.is(docsRoute('/_gateway/health', new URLSearchParams(), server.views), undefined, 'other admin paths are not ours');
});

test('bad queries answer 400 naming the value and the valid choices', async () => {
  const bad = await get('/_gateway/releases?from=9.9.9&to=3.6.0');
  assert.is(bad.status, 400);
  const text = await bad.text();
  assert.match(text, 'from=9.9.9 is not a release of exchange; valid: 1.0.0,');
  const svc = await get('/_gateway/releases?service=nope');
  assert.is(svc.status, 400);
  assert.match(await svc.text(), 'service &#34;nope&#34; has no timeline here; valid: exchange');
  const rel = await get('/_gateway/docs?release=1.0.0');
  assert.is(rel.status, 400);
  assert.match(await rel.text(), 'release=1.0.0 is not served here; valid: 3.12.0');
});

test('/_gateway/asyncapi.json is the AsyncAPI of the pin; the docs page loads the OpenAPI of the pin', async () => {
  const r = await get('/_gateway/asyncapi.json');
  assert.is(r.status, 200);
  assert.equal(await r.json(), toAsyncApi(server.views));
  const page = await (await get('/_gateway/docs')).text();
  assert.match(page, 'data-spec="docs/openapi/3.12.0.json"');
  const spec = (await (await get('/_gateway/docs/openapi/3.12.0.json')).json()) as { info: { version: string } };
  assert.is(spec.info.version, '3.12.0');
});

test('a pin of two releases of a service: one document per release, chosen with ?release=', () => {
  const { catalogue } = loadCatalogue();
  const [exchange, tx] = ['exchange', 'tx-examples'].map((id) => catalogue.services.find((s) => s.id === id)!);
  const views = [resolveService(exchange, '3.5.1'), resolveService(exchange, '3.6.0'), resolveService(tx)];
  const q = (s: string) => new URLSearchParams(s);
  const page = docsRoute('/_gateway/docs', q('release=3.5.1'), views)!;
  assert.is(page.status, 200);
  assert.match(String(page.body), 'data-spec="docs/openapi/3.5.1.json"');
  assert.match(String(page.body), '<a href="docs?release=3.6.0">3.6.0</a>');
  for (const id of ['3.5.1', '3.6.0']) {
    const spec = JSON.parse(String(docsRoute(`/_gateway/docs/openapi/${id}.json`, q(''), views)!.body)) as { info: { version: string }; paths: Record<string, unknown> };
    assert.is(spec.info.version, id);
    assert.ok(spec.paths['/send_lovelace'], `${id}: the unversioned service is in every document`);
  }
  const timeline = String(docsRoute('/_gateway/releases', q(''), views)!.body);
  assert.match(timeline, '<li id="r-3.6.0" class="release pinned">');
  assert.match(timeline, '<li id="r-3.5.1" class="release pinned">');
  // Each breaking change says what the gateway does with clients pinned before it.
  assert.match(timeline, 'endpoint removed; use POST /sapi/v1/margin/borrow-repay; old clients: bridged by version change margin-loan-to-borrow-repay');
  assert.match(timeline, 'old clients: not bridged: refused 410 (declared unbridgeable)');
});

test.run();
