// catalogue/github as the release import makes it from the three vendored subsets of GitHub's
// description (data/github), in order: each release serves exactly the subset's operations of its
// description (read here with JSON.parse, not with the importer's reader), with one `in: path`
// parameter per `{name}`; the history between them is stamped (Copilot usage and the webhook
// deliveries' `redelivery` gone at 2025-04-09, projects classic deprecated then, removed at
// 2025-12-09) and the diff tool reports it; a second run writes nothing; `--tags` selects by first
// tag. A small description covers the body-field lifecycle: added, removed, made required, retyped.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { resolveService } from '../../src/catalogue/resolve.js';
import type { Service } from '../../src/catalogue/model.js';
import { importRelease, type ReleaseImportReport } from '../../tools/catalogue-import/release-import.js';
import { dataName, SNAPSHOTS } from '../../tools/github-subset.js';
import { emptyCatalogue as emptyFolder, folderBytes as snapshot } from '../helpers/import-folder.js';
import { ROOT } from '../support/processes.js';
import { runTool } from '../support/tools.js';

const test = suite('github import');
const emptyCatalogue = (id: string) => emptyFolder(id, 'github-import-');

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const dataPath = (version: string) => join(ROOT, 'data/github', dataName(version));

/** "METHOD /path" of every operation of a vendored description. */
function described(version: string): string[] {
  const doc = JSON.parse(readFileSync(dataPath(version), 'utf8'));
  return Object.entries<any>(doc.paths).flatMap(([path, item]) => Object.keys(item).filter((m) => METHODS.includes(m)).map((m) => `${m.toUpperCase()} ${path}`)).sort();
}

const { dir, serviceDir } = emptyCatalogue('github');
const reports: ReleaseImportReport[] = SNAPSHOTS.map(({ version, release }) => importRelease(dataPath(version), serviceDir, { release, date: release }));
const service = (): Service => loadCatalogue(dir, { modelCache: false }).catalogue.services.find((s) => s.id === 'github')!;

test('each release serves exactly the operations of its description: 0 missed, 0 extra', () => {
  const svc = service();
  assert.equal(svc.releases.map((r) => [r.id, r.date]), SNAPSHOTS.map((s) => [s.release, s.release]));
  for (const { version, release } of SNAPSHOTS) {
    const served = resolveService(svc, release).served.map((s) => s.endpoint.key).sort();
    const want = described(version);
    assert.equal(served.filter((k) => !want.includes(k)), [], `extra at ${release}`);
    assert.equal(want.filter((k) => !served.includes(k)), [], `missed at ${release}`);
    assert.ok(served.length >= 139 && served.length <= 147, `${served.length} at ${release}`);
  }
  assert.equal(reports.map((r) => r.skipped), [[], [], []]);
  const lint = runTool('catalogue', ['lint', '--catalogue', dir]);
  assert.is(lint.status, 0, lint.stdout + lint.stderr);
});

test('one in: path parameter per {name}, in path order; multiSegment where GitHub says x-multi-segment', () => {
  const svc = service();
  for (const e of svc.endpoints) {
    const names = [...e.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    assert.equal(e.parameters.filter((p) => (p.in as string) === 'path').map((p) => p.name), names, e.key);
    assert.ok(e.parameters.filter((p) => (p.in as string) === 'path').every((p) => p.required), e.key);
  }
  const multi: string[] = [];
  for (const file of readdirSync(join(serviceDir, 'endpoints'))) {
    for (const e of parse(readFileSync(join(serviceDir, 'endpoints', file), 'utf8')).endpoints) {
      for (const p of e.parameters ?? []) if (p.multiSegment) multi.push(`${e.method} ${e.path} ${p.name}`);
    }
  }
  assert.equal(multi.sort(), ['GET /repos/{owner}/{repo}/compare/{basehead} basehead', 'GET /repos/{owner}/{repo}/contents/{path} path']);
  const issue = svc.endpoints.find((e) => e.key === 'GET /repos/{owner}/{repo}/issues/{issue_number}')!;
  assert.equal(issue.parameters.find((p) => p.name === 'issue_number')!.schema, { type: 'integer' });
});

test('2024-11-06 → 2025-04-09: the Copilot usage operations and redelivery removed, each declared unbridgeable; the diff calls them breaking', () => {
  const svc = service();
  const removedAt = (release: string) => svc.endpoints.filter((e) => e.removed === release).map((e) => e.key).sort();
  assert.equal(removedAt('2025-04-09'), ['GET /enterprises/{enterprise}/copilot/billing/seats', 'GET /enterprises/{enterprise}/copilot/usage', 'GET /orgs/{org}/copilot/usage']);
  const deliveries = svc.endpoints.find((e) => e.key === 'GET /repos/{owner}/{repo}/hooks/{hook_id}/deliveries')!;
  assert.is(deliveries.parameters.find((p) => p.name === 'redelivery')!.removed, '2025-04-09');
  const declared = svc.changes.unbridgeable.filter((u) => u.release === '2025-04-09').map((u) => `${u.operation}${u.parameter ? ` ${u.parameter}` : ''}`).sort();
  assert.equal(declared, [...removedAt('2025-04-09'), 'GET /repos/{owner}/{repo}/hooks/{hook_id}/deliveries redelivery'].sort());
  const diff = runTool('diff-releases', ['2024-11-06', '2025-04-09', '--catalogue', dir, '--service', 'github', '--format', 'json']);
  assert.is(diff.status, 0, diff.stderr);
  const breaking = (JSON.parse(diff.stdout).changes as { severity: string; endpoint: string; id: string; message: string }[]).filter((c) => c.severity === 'breaking');
  assert.ok(breaking.some((c) => c.endpoint === 'GET /orgs/{org}/copilot/usage' && c.id === 'endpoint-removed'), JSON.stringify(breaking));
  assert.ok(breaking.some((c) => c.endpoint === 'GET /repos/{owner}/{repo}/hooks/{hook_id}/deliveries' && /redelivery/.test(c.message)), JSON.stringify(breaking));
});

test('a body field added: the issue type at 2025-04-09, in: body; projects classic deprecated at 2025-04-09 and removed at 2025-12-09', () => {
  const svc = service();
  const create = svc.endpoints.find((e) => e.key === 'POST /repos/{owner}/{repo}/issues')!;
  const type = create.parameters.find((p) => p.name === 'type')!;
  assert.equal([type.in, type.added, type.required], ['body', '2025-04-09', false]);
  assert.ok(create.parameters.some((p) => p.name === 'title' && p.in === 'body' && p.required));
  assert.ok(reports[1].added.includes('field POST /repos/{owner}/{repo}/issues type'));
  const classic = svc.endpoints.filter((e) => e.module === 'projects' && e.removed === '2025-12-09');
  assert.is(classic.length, 25);
  assert.ok(classic.every((e) => e.deprecated === '2025-04-09'), classic.filter((e) => e.deprecated !== '2025-04-09').map((e) => e.key).join(', '));
  assert.ok(classic.every((e) => svc.changes.unbridgeable.some((u) => u.operation === e.key && u.release === '2025-12-09')));
});

test('the same import again changes no byte; --tags keeps the operations of those first tags', () => {
  const bytes = snapshot(dir);
  const last = SNAPSHOTS[2];
  const again = importRelease(dataPath(last.version), serviceDir, { release: last.release });
  assert.equal(again.files, []);
  assert.equal(snapshot(dir), bytes);

  const only = emptyCatalogue('github');
  const r = importRelease(dataPath(last.version), only.serviceDir, { release: last.release, date: last.release, tags: ['copilot', 'rate-limit'] });
  const doc = JSON.parse(readFileSync(dataPath(last.version), 'utf8'));
  const want = Object.entries<any>(doc.paths).flatMap(([path, item]) => Object.entries<any>(item).filter(([m, op]) => METHODS.includes(m) && ['copilot', 'rate-limit'].includes(op.tags[0])).map(([m]) => `${m.toUpperCase()} ${path}`)).sort();
  assert.ok(want.length > 5);
  assert.equal(r.added.filter((a) => !a.includes(' ') || /^[A-Z]+ \//.test(a)).sort(), want);
  assert.is(r.leftOut, described(last.version).length - want.length);
  assert.equal(readdirSync(join(only.serviceDir, 'endpoints')).sort(), ['copilot.yaml', 'rate-limit.yaml']);
});

// --- the body-field lifecycle on a small description ---

const things = (version: string, fields: Record<string, unknown>, required: string[]) => ({
  openapi: '3.0.3', info: { title: 'Things', version }, servers: [{ url: 'https://things.example' }],
  paths: { '/things/{id}': { patch: { tags: ['things'], parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }], requestBody: { content: { 'application/json': { schema: { type: 'object', required, properties: fields } } } } } } },
});

test('body fields: removed is stamped and declared; made required is split and declared; a new type is reported, the catalogue kept', () => {
  const { dir: d, serviceDir: s } = emptyCatalogue('things');
  const docs = [
    things('1', { name: { type: 'string' }, size: { type: 'string' }, old: { type: 'boolean' } }, []),
    things('2', { name: { type: 'string' }, size: { type: 'integer' } }, ['name']),
  ];
  const files = docs.map((doc, i) => { const f = join(d, `things-${i + 1}.json`); writeFileSync(f, JSON.stringify(doc)); return f; });
  importRelease(files[0], s, { release: '1.0', date: '2024-01-01' });
  const r = importRelease(files[1], s, { release: '2.0', date: '2024-02-01' });
  assert.equal(r.removed, ['field PATCH /things/{id} old']);
  assert.equal(r.required, ['field PATCH /things/{id} name']);
  assert.equal(r.retyped, ['field PATCH /things/{id} size: "string" → "integer"']);
  assert.equal(r.proposed.sort(), [
    'unbridgeable PATCH /things/{id} at 2.0 (replacement: PATCH /things/{id} with body field name (required from 2.0))',
    'unbridgeable PATCH /things/{id} parameter old at 2.0',
  ]);
  const svc = loadCatalogue(d, { modelCache: false }).catalogue.services[0];
  const at = (release: string) => resolveService(svc, release).served[0].parameters.map((p) => [p.name, p.in, p.required]);
  assert.equal(at('1.0'), [['id', 'path', true], ['name', 'body', false], ['size', 'body', false], ['old', 'body', false]]);
  assert.equal(at('2.0'), [['id', 'path', true], ['size', 'body', false], ['name', 'body', true]]);
  const bytes = snapshot(d);
  const again = importRelease(files[1], s, { release: '2.0' });
  assert.equal([again.required, again.files], [['field PATCH /things/{id} name'], []]);
  assert.equal(snapshot(d), bytes);
});

test.run();
