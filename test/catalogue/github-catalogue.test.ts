// The committed catalogue/github against the descriptions it was imported from, through the tools
// a user runs: `npm run catalogue -- endpoints --release <id> --service github --format json` holds
// every operation of the subset in that description and none absent from it, and `npm run diff`
// names GitHub's removals of 2025-04-09 (Copilot usage, the deliveries' redelivery) as breaking.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { ROOT } from '../support/processes.js';
import { runTool } from '../support/tools.js';
import { dataName, SNAPSHOTS } from '../../tools/github-subset.js';

const test = suite('catalogue/github as committed');
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** "METHOD /path" of every operation of a vendored description (read with JSON.parse, not the importer). */
function described(version: string): string[] {
  const doc = JSON.parse(readFileSync(join(ROOT, 'data/github', dataName(version)), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).filter((m) => METHODS.includes(m)).map((m) => `${m.toUpperCase()} ${path}`)).sort();
}

test('each release serves exactly the subset of its description: 0 missed, 0 extra', () => {
  for (const { version, release } of SNAPSHOTS) {
    const r = runTool('catalogue', ['endpoints', '--release', release, '--service', 'github', '--format', 'json']);
    assert.is(r.status, 0, r.stderr);
    const served = (JSON.parse(r.stdout) as { method: string; path: string }[]).map((e) => `${e.method} ${e.path}`).sort();
    const want = described(version);
    assert.equal(want.filter((k) => !served.includes(k)), [], `missed at ${release}`);
    assert.equal(served.filter((k) => !want.includes(k)), [], `extra at ${release}`);
    assert.ok(served.length >= 139 && served.length <= 147, `${served.length} operations at ${release}`);
  }
});

test('the diff 2024-11-06 → 2025-04-09 calls the Copilot usage removals and the removed redelivery parameter breaking', () => {
  const r = runTool('diff-releases', ['2024-11-06', '2025-04-09', '--service', 'github', '--format', 'json']);
  assert.is(r.status, 0, r.stderr);
  const changes = (JSON.parse(r.stdout) as { changes: { id: string; severity: string; endpoint: string; parameter?: string; name?: string }[] }).changes;
  const breaking = (id: string, endpoint: string, parameter?: string) => changes.some((c) => c.id === id && c.severity === 'breaking' && c.endpoint === endpoint && (parameter === undefined || c.parameter === parameter));
  for (const e of ['GET /orgs/{org}/copilot/usage', 'GET /enterprises/{enterprise}/copilot/usage']) assert.ok(breaking('endpoint-removed', e), e);
  assert.ok(changes.some((c) => c.id === 'parameter-removed' && c.severity === 'breaking' && c.endpoint === 'GET /repos/{owner}/{repo}/hooks/{hook_id}/deliveries' && c.name === 'redelivery'), 'redelivery removed');
});

test('the diff 2025-12-09 → 2026-03-10 lists body fields, status and answer changes as breaking, and says which are bridged', () => {
  const r = runTool('diff-releases', ['2025-12-09', '2026-03-10', '--service', 'github', '--format', 'json']);
  assert.is(r.status, 0, r.stderr);
  type C = { id: string; severity: string; endpoint?: string; name?: string; bridged?: boolean; message: string };
  const changes = (JSON.parse(r.stdout) as { changes: C[] }).changes;
  const find = (id: string, endpoint: string, name?: string) => changes.find((c) => c.id === id && c.endpoint === endpoint && (name === undefined || c.name === name));
  const status = find('answer-status-changed', 'DELETE /app/installations/{installation_id}');
  assert.equal([status?.severity, status?.bridged], ['breaking', true]);
  assert.match(status!.message, 'answer status 202 where it was 204');
  const lost = find('answer-field-removed', 'GET /repos/{owner}/{repo}/pulls/{pull_number}', 'merge_commit_sha');
  assert.equal([lost?.severity, lost?.bridged], ['breaking', false]);
  const rate = find('answer-field-removed', 'GET /rate_limit', 'rate');
  assert.equal([rate?.severity, rate?.bridged], ['breaking', true]);
  const assignee = find('body-property-removed', 'POST /repos/{owner}/{repo}/issues', 'assignee');
  assert.equal([assignee?.severity, assignee?.bridged], ['breaking', true]);
});

test.run();
