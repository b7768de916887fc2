// The OpenAPI export is accepted by Redocly's recommended ruleset (0 errors) and swagger-parser at a
// few releases (tools/lint-exports.ts checks every release), and says what the gateway does:
// security per operation, enums on array items, the gateway's own answers with the service's codes,
// lifecycle x- fields; `npm run catalogue -- openapi --service` exports one service.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { pinViews } from '../../src/catalogue/pin.js';
import { REASONS } from '../../src/catalogue/reasons.js';
import { resolveService } from '../../src/catalogue/resolve.js';
import { operationId, toOpenApi } from '../../src/catalogue/to-openapi.js';
import { redoclyLint, swaggerValidate } from '../../tools/export-checks.js';
import { runTool } from '../support/tools.js';
import { tempDir } from '../support/temp.js';

type Json = Record<string, any>;
const test = suite('openapi export');
const { catalogue } = loadCatalogue();
const exchange = catalogue.services.find((s) => s.id === 'exchange')!;
/** Linted here at the pin; test/soak/exports.soak.ts lints the oldest and a middle release too (npm run lint:exports: all). */
const LINTED = ['3.12.0'];
const docAt = (release: string) => toOpenApi(pinViews(catalogue, { all: release, byService: {} })) as Json;

test(`redocly lint (recommended) finds 0 errors at ${LINTED.join(', ')}, and finds the error it should in a broken copy`, () => {
  const dir = tempDir('openapi-lint-');
  try {
    const files = LINTED.map((r) => {
      const f = join(dir, `openapi-${r}.json`);
      writeFileSync(f, JSON.stringify(docAt(r)));
      return f;
    });
    // The control: the same document with one public operation's `security: []` dropped, cut to
    // that operation's path (the lint's work grows with the document; the error is found the same).
    const broken = docAt('3.12.0');
    const [path, ops] = Object.entries(broken.paths as Json).find(([, o]) => Object.values(o as Json).some((op: Json) => op.security?.length === 0))!;
    const method = Object.keys(ops).find((m) => ops[m].security.length === 0)!;
    delete ops[method].security;
    broken.paths = { [path]: ops };
    const brokenFile = join(dir, 'broken.json');
    writeFileSync(brokenFile, JSON.stringify(broken));

    const [control, ...reports] = redoclyLint([brokenFile, ...files]);
    reports.forEach((r, i) => {
      const errors = r.problems.filter((p) => p.severity === 'error');
      assert.is(r.totals.errors, 0, `redocly errors at ${LINTED[i]}:\n${errors.slice(0, 20).map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`).join('\n')}`);
    });
    const pointer = `#/paths/${path.replaceAll('~', '~0').replaceAll('/', '~1')}/${method}`;
    assert.ok(control.problems.some((p) => p.ruleId === 'security-defined' && p.location[0]?.pointer === pointer), `no security-defined error at ${pointer}: ${JSON.stringify(control.totals)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('swagger-parser validates the document at the same releases', async () => {
  for (const r of LINTED) {
    try {
      await swaggerValidate(docAt(r));
    } catch (e) {
      assert.unreachable(`swagger-parser refused the document at ${r}: ${(e as Error).message.slice(0, 1500)}`);
    }
  }
  assert.ok(true);
});

test('servers, and security per operation: [] when public, API_KEY and SIGNED as distinct schemes', () => {
  const doc = docAt('3.12.0');
  assert.ok(Array.isArray(doc.servers) && doc.servers.length > 0 && typeof doc.servers[0].url === 'string');
  const view = resolveService(exchange, '3.12.0');
  const seen = new Set<string>();
  for (const e of view.served) {
    const op = doc.paths[e.endpoint.path][e.endpoint.method.toLowerCase()];
    assert.is(op.operationId, operationId(e.endpoint));
    const expected = e.security === 'NONE' ? [] : [{ [e.security === 'API_KEY' ? 'apiKey' : 'signed']: [] }];
    assert.equal(op.security, expected, `${e.endpoint.key} (${e.security})`);
    seen.add(e.security);
  }
  assert.equal([...seen].sort(), ['API_KEY', 'NONE', 'SIGNED'], 'the pin has operations of every scheme');
  const schemes = doc.components.securitySchemes;
  assert.is(schemes.apiKey.name, exchange.apiKeyHeader);
  assert.is(schemes.signed.name, exchange.apiKeyHeader);
  for (const p of exchange.signedParameters) assert.match(schemes.signed.description, p.name);
});

test('an enum of an array parameter sits on items, with the values alive at the release', () => {
  const doc = docAt('3.12.0');
  const ep = exchange.endpoints.find((e) => e.parameters.some((p) => p.enum && p.schema.type === 'array'))!;
  const p = ep.parameters.find((x) => x.enum && x.schema.type === 'array')!;
  const param = doc.paths[ep.path][ep.method.toLowerCase()].parameters.find((x: Json) => x.name === p.name);
  assert.is(param.schema.enum, undefined, `${ep.key} ${p.name}: enum on the array itself`);
  assert.equal(param.schema.items.enum, resolveService(exchange, '3.12.0').enumValues(p.enum!).map((v) => v.value));
});

test("responses: 200, the gateway's own statuses with the service's codes in its envelope, the upstream's errors", () => {
  const doc = docAt('3.12.0');
  const view = resolveService(exchange, '3.12.0');
  const signed = view.served.find((e) => e.security === 'SIGNED')!;
  const op = doc.paths[signed.endpoint.path][signed.endpoint.method.toLowerCase()];
  const resolve = (r: Json) => (r.$ref ? doc.components.responses[r.$ref.split('/').pop()] : r);
  assert.ok(op.responses['200'].content['application/json'].schema, '200 with a JSON schema');
  assert.ok(op.responses.default, "the upstream's own errors as default");
  for (const status of [400, 401, 403, 404, 410, 413, 502, 504]) {
    const r = resolve(op.responses[String(status)] ?? assert.unreachable(`${signed.endpoint.key}: no ${status}`));
    const content = r.content['application/json'];
    assert.is(content.schema.$ref, '#/components/schemas/exchangeError');
    const reasons = Object.entries(REASONS).filter(([name, d]) => d.status === status && content.examples[name]);
    assert.ok(reasons.length > 0, `${status}: no example for any reason with that status`);
    for (const [name] of reasons) {
      const code = exchange.errors.codes[name] ?? exchange.errors.codes.unknown;
      assert.equal(content.examples[name].value, { code, msg: REASONS[name as keyof typeof REASONS].message }, `${status} ${name}`);
    }
  }
  assert.equal(doc.components.schemas.exchangeError.required, ['code', 'msg']);
  // The builder service answers in its own envelope and has no upstream to relay errors from.
  const build = doc.paths['/send_lovelace'].post;
  assert.equal(resolve(build.responses['400']).content['application/json'].examples.builder.value, { error: REASONS.builder.message });
  assert.is(build.responses.default, undefined);
  assert.is(build.responses['502'], undefined);
});

test('deprecated operations carry deprecated: true, the deprecating release, successor and sunset as x- fields', () => {
  // No endpoint of the catalogue is both deprecated and later removed yet: give a copy of the
  // deprecated one a removal two releases after its deprecation.
  const svc = structuredClone(exchange);
  const ep = svc.endpoints.find((e) => e.span.deprecated !== null && e.replacement)!;
  ep.span.removed = ep.span.deprecated! + 2;
  const at = svc.releases[ep.span.deprecated!];
  const op = (toOpenApi([resolveService(svc, at.id)]) as Json).paths[ep.path][ep.method.toLowerCase()];
  assert.is(op.deprecated, true);
  assert.equal(op['x-deprecated-in'], { release: at.id, date: at.date });
  assert.is(op['x-successor'], ep.replacement);
  const gone = svc.releases[ep.span.removed];
  assert.equal(op['x-sunset'], { release: gone.id, date: gone.date });
  const alive = docAt('3.12.0').paths['/api/v3/ping'].get;
  assert.is(alive.deprecated, undefined);
});

test('npm run catalogue -- openapi --service exports that service alone; an unknown one is a usage error', () => {
  const run = (...args: string[]) => runTool('catalogue', ['openapi', ...args]);
  const one = run('--service', 'tx-examples');
  assert.is(one.status, 0, one.stderr);
  const doc = JSON.parse(one.stdout) as Json;
  assert.equal(Object.keys(doc.paths).sort(), catalogue.services.find((s) => s.id === 'tx-examples')!.endpoints.map((e) => e.path).sort());
  const ex = run('--service', 'exchange', '--release', '3.6.0');
  assert.is(ex.status, 0, ex.stderr);
  const exDoc = JSON.parse(ex.stdout) as Json;
  assert.is(exDoc.info.version, '3.6.0');
  assert.not.ok(exDoc.paths['/send_lovelace']);
  const bad = run('--service', 'nope');
  assert.is(bad.status, 2);
  assert.match(bad.stderr, /service.*nope.*exchange/s);
});

test('each operation states its request weight (x-weight, and in words on the docs page)', () => {
  const doc = docAt('3.12.0') as { paths: Record<string, Record<string, { description?: string; 'x-weight'?: unknown }>> };
  const depth = doc.paths['/api/v3/depth'].get;
  assert.ok(depth['x-weight'], 'depth carries its conditional weight');
  assert.match(depth.description!, /^Request weight: limit ≤ 100: 5, ≤ 500: 25, ≤ 1000: 50, more: 250/);
  assert.match(doc.paths['/api/v3/order'].post.description!, /^Request weight: 1 \(per IP\)/);
});

test.run();
