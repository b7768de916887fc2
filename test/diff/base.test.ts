// --base as a reviewer runs it: a temporary git repository holding a catalogue, a breaking and a
// harmless YAML edit in its working tree, `npm run diff -- --base HEAD` and its exit codes; then
// the CI formats of that run (JUnit XML parsed, GitHub annotations at the edited lines) and the
// JSON output checked against the schema `--format json-schema` prints.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { GOLDEN_DIR, ROOT, runTool, tempDir, type Run } from './support.js';

const repo = tempDir('diff-base-repo-');
const cat = join(repo, 'catalogue');
const shopYaml = join(cat, 'shop', 'endpoints', 'shop.yaml');
const enumsYaml = join(cat, 'shop', 'enums.yaml');

function sh(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { cwd: repo, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** The diff CLI run from the repository root, as a CI job runs it. */
const diff = (...args: string[]): Run => runTool('diff-releases', ['--catalogue', 'catalogue', '--service', 'shop', ...args], { cwd: repo });

mkdirSync(cat);
cpSync(join(ROOT, 'catalogue', 'schema'), join(cat, 'schema'), { recursive: true });
cpSync(join(ROOT, 'test', 'diff', 'fixtures', 'shop'), join(cat, 'shop'), { recursive: true });
sh('git', ['init', '-q', '-b', 'main']);
sh('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'add', '.']);
sh('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'catalogue']);
const original = { shop: readFileSync(shopYaml, 'utf8'), enums: readFileSync(enumsYaml, 'utf8') };

function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8');
  assert.ok(text.includes(from), `fixture has ${from}`);
  writeFileSync(file, text.replace(from, to));
}
const restore = () => {
  writeFileSync(shopYaml, original.shop);
  writeFileSync(enumsYaml, original.enums);
};
// Every test starts from the committed catalogue, whatever the one before it left behind.
test.before.each(() => {
  sh('git', ['checkout', '-q', '--', '.']);
});
/** The breaking edit: GET /v2/items added later, NEWEST gone from SortOrder, sort made required since 1.0. */
function historyEdits(): void {
  edit(shopYaml, "{ method: GET, path: /v2/items, added: '1.1' }", "{ method: GET, path: /v2/items, added: '2.0' }");
  edit(enumsYaml, "      - { value: NEWEST, added: '1.1' }\n", '');
  edit(shopYaml, '      - { name: sort, enum: SortOrder }', '      - { name: sort, enum: SortOrder, required: true }');
}
const lineOf = (file: string, needle: string) => readFileSync(file, 'utf8').split('\n').findIndex((l) => l.includes(needle)) + 1;

test('no edit: no changes, exit 0 with --fail-on any', () => {
  const r = diff('--base', 'HEAD', '--fail-on', 'any');
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /shop HEAD → working catalogue: no changes/);
});

test('harmless edit (a summary; an optional parameter in the newest release): exit 0 with --fail-on breaking', () => {
  edit(shopYaml, '{ method: GET, path: /v2/items, added: \'1.1\' }', "{ method: GET, path: /v2/items, added: '1.1', summary: Items v2 }");
  edit(shopYaml, "      - { name: token, required: true, added: '10.0' }", "      - { name: token, required: true, added: '10.0' }\n      - { name: fields, added: '10.0' }");
  const r = diff('--base', 'HEAD', '--fail-on', 'breaking', '--format', 'json');
  assert.is(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.changes.map((c: { id: string; releases: string[]; endpoint: string; name: string }) => `${c.id} ${c.endpoint} ${c.name} ${c.releases}`), ['parameter-added GET /v1/items fields 10.0']);
  assert.is(diff('--base', 'HEAD', '--fail-on', 'any').status, 1, 'the info change fails --fail-on any');
  restore();
});

test('history edits: added moved later, an enum value removed retroactively, a parameter made required in the past: breaking for the releases affected, exit 1', () => {
  historyEdits();
  const r = diff('--base', 'HEAD', '--fail-on', 'breaking', '--format', 'json');
  assert.is(r.status, 1, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.releases, ['1.0', '1.1', '2.0-rc1', '2.0', '10.0']);
  const got = out.changes.map((c: { id: string; severity: string; endpoint?: string; enum?: string; value?: string; name?: string; releases: string[] }) =>
    `${c.severity} ${c.id} ${c.endpoint ?? c.enum} ${c.name ?? c.value ?? ''} ${c.releases.join(',')}`).sort();
  assert.equal(got, [
    'breaking endpoint-removed GET /v2/items  1.1,2.0-rc1',
    'breaking enum-value-removed SortOrder NEWEST 1.1,2.0-rc1,2.0,10.0',
    'breaking parameter-became-required GET /v1/items sort 1.0,1.1,2.0-rc1,2.0,10.0',
  ]);
  const text = diff('--base', 'HEAD').stdout;
  assert.match(text, /breaking +1\.0\.\.10\.0 +parameter-became-required +query parameter sort became required/);
  assert.match(text, /breaking +1\.1, 2\.0-rc1 +endpoint-removed/);
  assert.is(diff('--base', 'HEAD', '--fail-on', 'breaking', '--ignore', writeTemp('ignore', 'GET /v2/items\nGET /v1/items\n')).status, 0, 'ignored by endpoint: nothing breaking left');
  assert.is(diff('--base', 'HEAD', '--release', '1.0', '--format', 'json').stdout.includes('"endpoint-removed"'), false, '--release 1.0: GET /v2/items did not exist there anyway');
});

test('github format: ::error annotations at the edited YAML lines, paths from the repository root', () => {
  historyEdits();
  const r = diff('--base', 'HEAD', '--format', 'github');
  const lines = r.stdout.trim().split('\n');
  assert.ok(lines.includes(`::error file=catalogue/shop/endpoints/shop.yaml,line=${lineOf(shopYaml, 'path: /v2/items')},title=endpoint-removed (1.1%2C 2.0-rc1)::GET /v2/items: endpoint removed`), r.stdout);
  assert.ok(lines.some((l) => l.startsWith(`::error file=catalogue/shop/endpoints/shop.yaml,line=${lineOf(shopYaml, 'name: sort')},title=parameter-became-required (1.0..10.0)::`)), r.stdout);
  // the removed enum value is annotated where the base had it, in the same file of the working tree
  assert.ok(lines.some((l) => l.startsWith('::error file=catalogue/shop/enums.yaml,line=6,title=enum-value-removed')), r.stdout);
});

test('junit format parses as JUnit XML: one testcase per change, breaking ones are failures', () => {
  historyEdits();
  const xml = diff('--base', 'HEAD', '--format', 'junit').stdout;
  assert.is(XMLValidator.validate(xml), true);
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml);
  const suite = doc.testsuites.testsuite;
  const cases = [suite.testcase].flat();
  assert.is(cases.length, 3);
  assert.is(Number(suite.failures), 3);
  assert.is(Number(doc.testsuites.tests), 3);
  assert.ok(cases.every((c: { failure?: { type: string } }) => c.failure?.type === 'breaking'));
  const warnOnly = diff('--base', 'HEAD', '--format', 'junit', '--severity', writeTemp('levels.yaml', 'enum-value-removed: warning\n'));
  assert.is(Number(new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(warnOnly.stdout).testsuites.failures), 2, '--severity re-levels before the report');
  restore();
});

test('--base <folder> and bad bases', () => {
  const copy = tempDir('diff-base-copy-');
  cpSync(cat, copy, { recursive: true });
  edit(shopYaml, "{ method: GET, path: /v1/report, added: '2.0-rc1', deprecated: '10.0' }", "{ method: GET, path: /v1/report, added: '2.0-rc1' }");
  const r = diff('--base', copy, '--format', 'json');
  assert.is(r.status, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).changes.map((c: { id: string; releases: string[] }) => `${c.id} ${c.releases}`), ['endpoint-undeprecated 10.0']);
  restore();
  const bad = diff('--base', 'no-such-branch');
  assert.is(bad.status, 2);
  assert.match(bad.stderr, /--base "no-such-branch" is neither a folder nor a git revision of /);
  const extra = diff('--base', 'HEAD', '1.0');
  assert.is(extra.status, 2);
  assert.match(extra.stderr, /unexpected argument "1\.0"/);
});

test('a deleted published release fails --fail-on breaking and is named', () => {
  edit(join(cat, 'shop', 'releases.yaml'), "  - { id: '10.0', date: '2020-05-01', notes: orders signed }\n", '');
  for (const f of ['service.yaml', 'enums.yaml', 'ws-api.yaml', 'streams.yaml', 'endpoints/shop.yaml']) {
    const file = join(cat, 'shop', f);
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll("'10.0'", "'2.0'"));
  }
  const r = diff('--base', 'HEAD', '--fail-on', 'breaking');
  assert.is(r.status, 1, r.stderr);
  assert.match(r.stdout, /releases deleted from the catalogue \(clients pinned there lose them\): 10\.0/);
  sh('git', ['checkout', '-q', '--', '.']);
});

test('--format json-schema prints the schema the json output (release and base diffs) validates against', () => {
  const { Ajv2020 } = createRequire(import.meta.url)('ajv/dist/2020') as typeof import('ajv/dist/2020.js');
  const schema = JSON.parse(diff('--format', 'json-schema').stdout);
  const validate = new Ajv2020({ allErrors: true, strict: true }).compile(schema);
  const samples = [
    readFileSync(join(GOLDEN_DIR, '3.12.0_1.0.0.json'), 'utf8'),
    diff('1.0', '10.0', '--format', 'json').stdout,
  ];
  edit(shopYaml, "{ method: GET, path: /v2/items, added: '1.1' }", "{ method: GET, path: /v2/items, added: '2.0' }");
  samples.push(diff('--base', 'HEAD', '--format', 'json').stdout);
  restore();
  for (const s of samples) {
    const ok = validate(JSON.parse(s));
    assert.ok(ok, JSON.stringify(validate.errors));
  }
  assert.not.ok(validate({ service: 's', from: 'a', to: 'b', changes: [{ id: 'no-such-rule', severity: 'info', kind: 'endpoint', release: '1', message: 'm' }] }), 'unknown rule ids are refused');
});

function writeTemp(name: string, text: string): string {
  const file = join(tempDir('diff-base-opt-'), name);
  writeFileSync(file, text);
  return file;
}

test.run();
