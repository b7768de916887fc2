// A broken catalogue stops the load with every error at once, each naming file, line and problem.
import { mkdirSync, writeFileSync, cpSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { CatalogueError, formatProblem } from '../../src/catalogue/problems.js';
import { ROOT } from '../support/processes.js';
import { runTool } from '../support/tools.js';
import { tempDir } from '../support/temp.js';

const test = suite('catalogue load errors');

const SERVICE = `id: demo\ntitle: Demo\nkind: proxy\nupstreams: { rest: 'http://127.0.0.1:1' }\nerrors: { envelope: code-msg, codes: { unknown: -1 } }\n`;
const RELEASES = `releases:\n  - { id: '1.0', date: '2024-01-01' }\n  - { id: '1.1', date: '2024-02-01' }\n  - { id: '2.0rc1', date: '2024-03-01' }\n`;
const ENUMS = `enums:\n  Color:\n    values:\n      - { value: RED }\n      - { value: BLUE, added: '1.1' }\n`;

/** A catalogue folder with the schema and one service whose files are given. */
function catalogue(files: Record<string, string>): string {
  const dir = tempDir('cat-');
  cpSync(join(ROOT, 'catalogue/schema'), join(dir, 'schema'), { recursive: true });
  const all = { 'demo/service.yaml': SERVICE, 'demo/releases.yaml': RELEASES, 'demo/enums.yaml': ENUMS, ...files };
  for (const [name, text] of Object.entries(all)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

function errorsOf(files: Record<string, string>): string[] {
  try {
    loadCatalogue(catalogue(files), { modelCache: false });
  } catch (e) {
    if (e instanceof CatalogueError) return e.problems.map(formatProblem);
    throw e;
  }
  assert.unreachable('the catalogue should not load');
  return [];
}

const endpoints = (body: string) => ({ 'demo/endpoints/things.yaml': `module: things\nendpoints:\n${body}` });

test('a good catalogue loads', () => {
  const { catalogue: c } = loadCatalogue(catalogue(endpoints(`  - method: GET\n    path: /v1/thing\n    added: '1.1'\n`)), { modelCache: false });
  assert.is(c.services[0].endpoints.length, 1);
  assert.is(c.services[0].endpoints[0].span.added, 1);
});

test('bad YAML: file and line of the syntax error', () => {
  const errs = errorsOf(endpoints(`  - method: GET\n    path: /v1/thing\n      oops: [unclosed\n`));
  assert.ok(errs.length >= 1);
  assert.match(errs[0], /demo\/endpoints\/things\.yaml:\d+: invalid YAML/);
});

test('unknown field: named, with its line', () => {
  const errs = errorsOf(endpoints(`  - method: GET\n    path: /v1/thing\n    sumary: typo\n`));
  assert.equal(errs, [`${errs[0].split(':')[0]}:5: endpoints.0: unknown field "sumary"`]);
  assert.match(errs[0], /things\.yaml:5:/);
});

test('release id not in releases.yaml', () => {
  const errs = errorsOf(endpoints(`  - method: GET\n    path: /v1/thing\n    added: '1.5'\n`));
  assert.is(errs.length, 1);
  assert.match(errs[0], /things\.yaml:5: GET \/v1\/thing: added release "1\.5" is not in releases\.yaml/);
});

test('removed not after added', () => {
  const errs = errorsOf(endpoints(`  - method: GET\n    path: /v1/thing\n    added: '1.1'\n    removed: '1.0'\n`));
  assert.is(errs.length, 1);
  assert.match(errs[0], /things\.yaml:6: GET \/v1\/thing: removed \(1\.0\) must come after added \(1\.1\)/);
});

test('deprecated after removed', () => {
  const errs = errorsOf(endpoints(`  - method: GET\n    path: /v1/thing\n    deprecated: '2.0rc1'\n    removed: '1.1'\n`));
  assert.match(errs[0], /things\.yaml:5: GET \/v1\/thing: deprecated \(2\.0rc1\) must come before removed \(1\.1\)/);
});

test('duplicate endpoint (overlapping lives), pointing at both places', () => {
  const errs = errorsOf({
    ...endpoints(`  - method: GET\n    path: /v1/thing\n`),
    'demo/endpoints/more.yaml': `module: more\nendpoints:\n  - method: GET\n    path: /v1/thing\n    added: '1.1'\n`,
  });
  assert.is(errs.length, 1);
  assert.match(errs[0], /duplicate endpoint \(GET \/v1\/thing, also at .*\.yaml:3\)/);
});

test('the same endpoint with disjoint lives is allowed (removed, then added again)', () => {
  const { catalogue: c } = loadCatalogue(catalogue(endpoints(`  - method: GET\n    path: /v1/thing\n    removed: '1.1'\n  - method: GET\n    path: /v1/thing\n    added: '2.0rc1'\n`)), { modelCache: false });
  assert.is(c.services[0].endpoints.length, 2);
});

test('reference to an enum that does not exist', () => {
  const errs = errorsOf(endpoints(`  - method: GET\n    path: /v1/thing\n    parameters:\n      - { name: color, enum: Colour }\n`));
  assert.is(errs.length, 1);
  assert.match(errs[0], /things\.yaml:6: GET \/v1\/thing: parameter color refers to enum "Colour", which does not exist in enums\.yaml/);
});

test('builder not declared by the service', () => {
  const errs = errorsOf(endpoints(`  - method: POST\n    path: /v1/build\n    builder: nosuch\n`));
  assert.match(errs[0], /things\.yaml:5: POST \/v1\/build: builder "nosuch" is not declared in service\.yaml builders/);
});

test('wrong type and missing required field, from the JSON Schema', () => {
  const errs = errorsOf(endpoints(`  - method: FETCH\n    path: /v1/thing\n  - path: /v1/other\n`));
  assert.ok(errs.some((e) => /things\.yaml:3: endpoints\.0\.method: must be one of GET, POST, PUT, DELETE, PATCH/.test(e)), errs.join('\n'));
  assert.ok(errs.some((e) => /things\.yaml:5: endpoints\.1: missing required field "method"/.test(e)), errs.join('\n'));
});

test('duplicate release id and an enum value added at an unknown release', () => {
  const errs = errorsOf({
    'demo/releases.yaml': `${RELEASES}  - { id: '1.1', date: '2024-04-01' }\n`,
    'demo/enums.yaml': `enums:\n  Color:\n    values:\n      - { value: RED, added: '9' }\n`,
  });
  assert.ok(errs.some((e) => /releases\.yaml:5: duplicate release id "1\.1"/.test(e)), errs.join('\n'));
  assert.ok(errs.some((e) => /enums\.yaml:4: enum Color value RED: added release "9" is not in releases\.yaml/.test(e)), errs.join('\n'));
});

test('stream placeholder that is not defined; constraint naming an unknown parameter', () => {
  const errs = errorsOf({
    'demo/streams.yaml': `placeholders:\n  symbol: { pattern: '^[a-z]+$' }\nstreams:\n  - name: '<symbol>@kline_<interval>'\npaths: { raw: /ws, combined: /stream }\n`,
    ...endpoints(`  - method: GET\n    path: /v1/thing\n    parameters: [{ name: a }]\n    constraints:\n      - exclusive: [a, b]\n`),
  });
  assert.ok(errs.some((e) => /streams\.yaml:4: stream <symbol>@kline_<interval>: placeholder <interval> is not defined/.test(e)), errs.join('\n'));
  assert.ok(errs.some((e) => /things\.yaml:7: GET \/v1\/thing: constraint names parameter "b"/.test(e)), errs.join('\n'));
});

test('a code-msg envelope without an unknown code', () => {
  const errs = errorsOf({ 'demo/service.yaml': SERVICE.replace('codes: { unknown: -1 }', 'codes: { missing: -2 }') });
  assert.equal(errs.map((e) => e.replace(/^.*service\.yaml/, 'service.yaml')), ['service.yaml:5: errors: the code-msg envelope needs codes.unknown (the code of any reason not named)']);
});

test('every error is reported at once, across files', () => {
  const errs = errorsOf({
    ...endpoints(`  - method: GET\n    path: /v1/thing\n    added: '7'\n  - method: GET\n    path: /v1/other\n    parameters: [{ name: c, enum: Nope }]\n`),
    'demo/enums.yaml': `enums:\n  Color:\n    values:\n      - { value: RED, removed: '1.0' }\n`,
    'demo/ws-api.yaml': `methods:\n  - name: ping\n    bogus: 1\n`,
  });
  assert.ok(errs.length >= 4, errs.join('\n'));
  assert.ok(errs.some((e) => /things\.yaml:5:.*"7"/.test(e)));
  assert.ok(errs.some((e) => /things\.yaml:8:.*Nope/.test(e)));
  assert.ok(errs.some((e) => /enums\.yaml:4:.*removed \(1\.0\) must come after added/.test(e)));
  assert.ok(errs.some((e) => /ws-api\.yaml:3:.*unknown field "bogus"/.test(e)));
});

test('the lint command prints every error with file:line and exits 1', () => {
  const dir = catalogue(endpoints(`  - method: GET\n    path: /v1/thing\n    added: '7'\n    sumary: x\n`));
  const r = runTool('catalogue', ['lint', '--catalogue', dir]);
  assert.is(r.status, 1);
  assert.match(r.stdout, /error: .*things\.yaml:6: endpoints\.0: unknown field "sumary"/);
  assert.match(r.stdout, /1 error\(s\)/);
  const ok = runTool('catalogue', ['lint']);
  assert.is(ok.status, 0, ok.stdout);
  assert.match(ok.stdout, /catalogue ok/);
});

test('websocket paths: required with streams and methods; each path its own', () => {
  const missing = errorsOf({
    'demo/streams.yaml': `streams:\n  - name: 'a@trade'\n`,
    'demo/ws-api.yaml': `methods:\n  - name: ping\n`,
  });
  assert.ok(missing.some((e) => /streams\.yaml:1: missing required field "paths"/.test(e)), missing.join('\n'));
  assert.ok(missing.some((e) => /ws-api\.yaml:1: missing required field "path"/.test(e)), missing.join('\n'));
  const clash = errorsOf({
    'demo/streams.yaml': `paths: { raw: /ws, combined: /ws/combined }\nstreams:\n  - name: 'a@trade'\n`,
    'demo/ws-api.yaml': `path: /ws/api\nmethods:\n  - name: ping\n`,
  });
  assert.ok(clash.some((e) => /streams\.yaml:1: paths: raw \(\/ws\) and combined \(\/ws\/combined\) must be different paths/.test(e)), clash.join('\n'));
  assert.ok(clash.some((e) => /ws-api\.yaml:1: path \/ws\/api must differ from the stream paths/.test(e)), clash.join('\n'));
  const notAPath = errorsOf({ 'demo/ws-api.yaml': `path: ws-api/v3?x=1\nmethods:\n  - name: ping\n` });
  assert.ok(notAPath.some((e) => /ws-api\.yaml:1: .*path/.test(e)), notAPath.join('\n'));
});

test.run();
