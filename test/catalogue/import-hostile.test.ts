// Release import and import-openapi fed hostile files (issue 46, items 5): an alias bomb, nesting
// deeper than the loader reads, a file or an operation count beyond the documented bounds, non-UTF-8
// bytes, a description of another shape, paths and parameter names the catalogue cannot hold. Each
// is refused before any work: one line on stderr, exit 2, no stack trace, nothing written.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { runTool, type Run } from '../support/tools.js';
import { emptyCatalogue, folderBytes } from '../helpers/import-folder.js';
import { catalogueFolder, problemsOf } from './folder.js';

const test = suite('import: hostile files');

/** An OpenAPI document with one GET per path, each taking the parameters named. */
function openapi(paths: Record<string, string[]>): Record<string, unknown> {
  return {
    openapi: '3.0.0', info: { title: 'Items', version: '1' }, servers: [{ url: 'http://127.0.0.1:1' }],
    paths: Object.fromEntries(Object.entries(paths).map(([p, names]) => [p, { get: { tags: ['items'], parameters: names.map((name) => ({ name, in: 'query', schema: { type: 'string' } })) } }])),
  };
}

/** `import` of `text` (written as `name`) into an empty service, and `import-openapi` of it. */
function both(name: string, text: string | Buffer, extra: string[] = []): { release: Run; openapi: Run; unchanged: boolean } {
  const { dir, serviceDir } = emptyCatalogue('items', 'import-hostile-');
  const file = join(dir, name);
  writeFileSync(file, text);
  const before = folderBytes(serviceDir);
  const release = runTool('catalogue', ['import', file, '--service', serviceDir, '--release', '1.0', '--date', '2024-01-01', ...extra]);
  const openapi = runTool('catalogue', ['import-openapi', file, serviceDir, ...extra]);
  return { release, openapi, unchanged: JSON.stringify([...folderBytes(serviceDir)]) === JSON.stringify([...before]) };
}

/** A service folder with service.yaml (a method table cannot start a service) and a file for the table. */
function tableService(): { serviceDir: string; table: string } {
  const { dir, serviceDir } = emptyCatalogue('items', 'import-hostile-');
  writeFileSync(join(serviceDir, 'service.yaml'), "id: items\ntitle: Items\nkind: proxy\nupstreams: { rest: 'http://127.0.0.1:1' }\n");
  return { serviceDir, table: join(dir, 'table.json') };
}

const importTable = (serviceDir: string, table: string, extra: string[] = []) => runTool('catalogue', ['import', table, '--service', serviceDir, '--release', '1.0', '--date', '2024-01-01', ...extra]);

/** Refused as the docs promise: exit 2, nothing on stdout, one line on stderr matching `why`. */
function refusedOneLine(r: Run, why: RegExp | string): void {
  assert.is(r.status, 2, r.stdout + r.stderr);
  assert.is(r.stdout, '');
  assert.match(r.stderr, /^error: [^\n]*\n$/, 'one line, no stack trace');
  assert.match(r.stderr, why);
}

test('a 688-byte YAML alias bomb is refused at once by the loader\'s alias limit (it ran past 40 s and 1.7 GB)', () => {
  const bomb = ['openapi: 3.0.0', 'info: { title: bomb, version: "1" }', 'a: &a ["x","x","x","x","x","x","x","x","x"]'];
  for (const [n, prev] of [['b', 'a'], ['c', 'b'], ['d', 'c'], ['e', 'd'], ['f', 'e'], ['g', 'f'], ['h', 'g'], ['i', 'h']]) bomb.push(`${n}: &${n} [*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev}]`);
  bomb.push('paths: { /x: { get: { summary: *i } } }');
  const started = Date.now();
  const r = both('bomb.yaml', bomb.join('\n'));
  assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
  refusedOneLine(r.release, /bomb\.yaml: invalid YAML: more than 1000 alias expansions/);
  refusedOneLine(r.openapi, /bomb\.yaml: invalid YAML: more than 1000 alias expansions/);
  assert.ok(r.unchanged);
});

test('values nested deeper than the loader\'s 64 levels are refused, YAML and JSON alike', () => {
  const deepJson = JSON.stringify({ openapi: '3.0.0', paths: {}, x: JSON.parse('['.repeat(100) + ']'.repeat(100)) });
  const json = both('deep.json', deepJson);
  refusedOneLine(json.release, /deep\.json: values nested more than 64 deep/);
  refusedOneLine(json.openapi, /deep\.json: values nested more than 64 deep/);
  const yaml = both('deep.yaml', `openapi: 3.0.0\npaths: {}\nx: ${'['.repeat(100)}${']'.repeat(100)}\n`);
  refusedOneLine(yaml.release, /deep\.yaml: invalid YAML: .*nested more than 64 deep/);
  const abyss = both('abyss.yaml', `openapi: 3.0.0\npaths: {}\nx: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`);
  refusedOneLine(abyss.release, /abyss\.yaml: invalid YAML/);
});

test('the loader holds the same depth limit: a catalogue file nested deeper than 64 levels is a problem naming its line', () => {
  const dir = catalogueFolder({
    'demo/service.yaml': "id: demo\ntitle: Demo\nkind: proxy\nupstreams: { rest: 'http://127.0.0.1:1' }\n",
    'demo/endpoints/a.yaml': `module: a\nendpoints:\n  - { method: GET, path: /a }\nx:\n  ${'['.repeat(70)}${']'.repeat(70)}\n`,
  }, 'cat-deep-');
  assert.match(problemsOf(dir).join('\n'), /a\.yaml:\d+: invalid YAML: values nested more than 64 deep/);
});

test('a file larger than the size bound is refused before it is read, naming the bound and --max-source-mib', () => {
  const big = JSON.stringify({ ...openapi({ '/v1/items': [] }), padding: 'x'.repeat(2 * 1024 * 1024) });
  const r = both('big.json', big, ['--max-source-mib', '1']);
  refusedOneLine(r.release, /big\.json: 2\.0 MiB is larger than the 1 MiB an import reads \(--max-source-mib <n> to raise it\)/);
  refusedOneLine(r.openapi, /larger than the 1 MiB/);
  const raised = both('big.json', big, ['--max-source-mib', '3']);
  assert.is(raised.release.status, 0, raised.release.stderr);
  const bad = runTool('catalogue', ['import', 'x.json', '--service', 'y', '--release', '1', '--max-source-mib', 'lots']);
  assert.is(bad.status, 2);
  assert.match(bad.stderr, '--max-source-mib "lots" is not a whole number');
});

test('more operations than the bound are refused before they are compared, naming --max-operations', () => {
  const many = openapi(Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`/v1/items${i}`, []])));
  const r = both('many.json', JSON.stringify(many), ['--max-operations', '10']);
  refusedOneLine(r.release, /many\.json: 11 operations are more than the 10 an import reads \(--max-operations <n> to raise it\)/);
  refusedOneLine(r.openapi, /11 operations are more than the 10/);
  const { serviceDir, table } = tableService();
  writeFileSync(table, JSON.stringify({ methods: Array.from({ length: 11 }, (_, i) => ({ method: 'GET', path: `/v1/items${i}` })) }));
  refusedOneLine(importTable(serviceDir, table, ['--max-operations', '10']), /table\.json: 11 operations are more than the 10/);
});

test('non-UTF-8 bytes are refused, naming the offset, not turned into U+FFFD in the written catalogue', () => {
  const good = JSON.stringify(openapi({ '/v1/items': [] }));
  const at = good.indexOf('Items') + 2;
  const latin1 = Buffer.concat([Buffer.from(good.slice(0, at)), Buffer.from([0xe9]), Buffer.from(good.slice(at))]);
  const r = both('latin1.json', latin1);
  refusedOneLine(r.release, new RegExp(`latin1\\.json: not UTF-8 text \\(byte 0xe9 at offset ${at}, line 1\\)`));
  refusedOneLine(r.openapi, /not UTF-8 text/);
  assert.ok(r.unchanged);
});

test('a description of another shape is refused in one line, never a stack trace', () => {
  for (const [name, doc, why] of [
    ['list.json', { openapi: '3.0.0', paths: [] }, /not an OpenAPI document/],
    ['item.json', { openapi: '3.0.0', paths: { '/v1/items': [1] } }, /paths "\/v1\/items" is not an object/],
    ['params.json', { openapi: '3.0.0', paths: { '/v1/items': { get: { parameters: 'x' } } } }, /the parameters of GET "\/v1\/items" is not a list/],
    ['nameless.json', { openapi: '3.0.0', paths: { '/v1/items': { get: { parameters: [{ in: 'query' }] } } } }, /has no "name" and "in" strings/],
    ['security.json', { openapi: '3.0.0', paths: { '/v1/items': { get: { security: 'x' } } } }, /security\.json: not an OpenAPI 3 description the import can read/],
  ] as const) {
    const r = both(name, JSON.stringify(doc));
    refusedOneLine(r.release, why);
    refusedOneLine(r.openapi, why);
  }
  const { serviceDir, table } = tableService();
  writeFileSync(table, JSON.stringify({ methods: [{ method: 'GET', path: '/v1/a', params: 'x' }] }));
  refusedOneLine(importTable(serviceDir, table), /table\.json: methods\[0\]: "params" is not a list/);
  writeFileSync(table, JSON.stringify({ methods: [{ method: 'GET\nremoved GET /api/v3/order', path: '/v1/a' }] }));
  refusedOneLine(importTable(serviceDir, table), /methods\[0\]: method "GET\\nremoved GET \/api\/v3\/order" is not one of/);
});

test('a path with a newline cannot forge a report line: paths lint refuses (control characters, spaces, .., /_gateway/) are refused by the import', () => {
  for (const [path, why] of [
    ['/api/v3/x\nremoved GET /api/v3/order', /"\/api\/v3\/x\\nremoved GET \/api\/v3\/order" holds "\\n", a control character or space/],
    ['/api/v3/x\u001b[2J', /a control character or space/],
    ['/api/v3/my items', /a control character or space/],
    ['/api/../_gateway/reload', /has a "\." or "\.\." segment/],
    ['/_gateway/reload', /is under \/_gateway\//],
  ] as const) {
    const r = both('paths.json', JSON.stringify(openapi({ [path]: [] })));
    refusedOneLine(r.release, why);
    refusedOneLine(r.openapi, why);
    assert.ok(!/^removed GET \/api\/v3\/order/m.test(r.release.stdout + r.release.stderr));
    assert.ok(r.unchanged);
  }
  const { serviceDir, table } = tableService();
  writeFileSync(table, JSON.stringify({ methods: [{ method: 'GET', path: '/v1/a\nremoved GET /api/v3/order' }] }));
  refusedOneLine(importTable(serviceDir, table), /a control character or space/);
});

test('parameters named __proto__, constructor or prototype are refused by the import, as lint refuses them', () => {
  for (const name of ['__proto__', 'constructor', 'prototype']) {
    const r = both('proto.json', JSON.stringify(openapi({ '/v1/items': ['symbol', name] })));
    refusedOneLine(r.release, new RegExp(`GET "/v1/items": parameter "${name}": the name is not allowed`));
    refusedOneLine(r.openapi, /the name is not allowed/);
  }
  const body = openapi({});
  (body.paths as Record<string, unknown>)['/v1/items'] = { post: { requestBody: { content: { 'application/json': { schema: { type: 'object', properties: JSON.parse('{"__proto__":{"type":"string"}}') } } } } } };
  refusedOneLine(both('body.json', JSON.stringify(body)).release, /parameter "__proto__": the name is not allowed/);
});

test('what a description says that reaches the report (its version, a cookie parameter\'s name) is printed with control characters escaped', () => {
  const doc = openapi({ '/v1/items': [] });
  (doc.info as Record<string, string>).version = '1\nremoved GET /api/v3/order';
  const op = (doc.paths as Record<string, { get: Record<string, any> }>)['/v1/items'].get;
  op.parameters = [{ name: 'c\u001b[2J\nremoved GET /api/v3/account', in: 'cookie' }];
  const r = both('escape.json', JSON.stringify(doc), ['--dry-run']);
  assert.is(r.release.status, 0, r.release.stderr);
  assert.ok(!/^removed /m.test(r.release.stdout), r.release.stdout);
  assert.ok(!r.release.stdout.includes('\u001b'), 'no terminal escape reaches the terminal');
  assert.match(r.release.stdout, /^release 1\.0 .*\(version 1\\nremoved GET \/api\/v3\/order\)/m);
  assert.match(r.release.stdout, /^note GET \/v1\/items: cookie parameter c\\x1b\[2J\\nremoved GET \/api\/v3\/account not imported/m);
  assert.ok(!/^removed /m.test(r.openapi.stdout), r.openapi.stdout);
  assert.match(r.openapi.stdout, /^note GET \/v1\/items: cookie parameter c\\x1b\[2J\\n/m);
});

test.run();
