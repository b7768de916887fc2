// Release 2026-03-10 of catalogue/github as the tools show it: the plan of an old client's issue
// creation, the diff 2025-12-09 → 2026-03-10 (body fields removed and the type narrowed, breaking,
// the removals named bridged), and lint's coverage of every github release against 2026-03-10.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { runTool } from '../support/tools.js';

const test = suite('github 2026-03-10: plan, diff, coverage');

test("plan 2025-12-09 'POST /repos/{owner}/{repo}/issues': assignee listed into assignees, the answer's assignee copied back and restored", () => {
  const r = runTool('catalogue', ['plan', '2025-12-09', 'POST /repos/{owner}/{repo}/issues', '--service', 'github']);
  assert.is(r.status, 0, r.stderr);
  const plan = JSON.parse(r.stdout);
  assert.is(plan.upstreamRelease, '2026-03-10');
  assert.equal(plan.applied, [{ release: '2026-03-10', id: 'issue-created-assignee' }]);
  assert.equal(plan.request.map((p: { kind: string; steps: { kind: string; names: unknown }[] }) => [p.kind, p.steps.map((s) => [s.kind, s.names])]), [['json', [['list', { assignee: 'assignees' }]]]]);
  assert.equal(plan.answer.map((s: { kind: string; fields?: unknown; values?: unknown; names?: unknown; in?: string }) => [s.kind, s.fields ?? s.values ?? s.names, s.in]), [
    ['copy', { assignee: 'assignees[0]' }, undefined],
    ['restore', { assignee: null }, undefined],
    ['lost', ['has_downloads', 'use_squash_pr_title_as_default'], 'repository'],
  ]);
  assert.equal([plan.problems, plan.uncovered], [[], []]);
});

test('diff 2025-12-09 → 2026-03-10: the body fields removed and selected_repository_ids narrowed are breaking; the removals are bridged', () => {
  const r = runTool('diff-releases', ['2025-12-09', '2026-03-10', '--service', 'github', '--format', 'json']);
  assert.is(r.status, 0, r.stderr);
  const changes = JSON.parse(r.stdout).changes as { severity: string; endpoint: string; id: string; message: string; bridged?: boolean }[];
  const removed = changes.filter((c) => c.id === 'body-property-removed').map((c) => [c.endpoint, c.severity, c.bridged]);
  assert.equal(removed.sort(), [
    ['PATCH /repos/{owner}/{repo}', 'breaking', true],
    ['PATCH /repos/{owner}/{repo}/issues/{issue_number}', 'breaking', true],
    ['POST /orgs/{org}/repos', 'breaking', true],
    ['POST /orgs/{org}/teams', 'breaking', true],
    ['POST /repos/{owner}/{repo}/issues', 'breaking', true],
  ]);
  assert.match(changes.find((c) => c.endpoint === 'POST /repos/{owner}/{repo}/issues')!.message, /body property assignee removed; use assignees; old clients: bridged by version change issue-created-assignee/);
  const narrowed = changes.filter((c) => c.endpoint === 'PUT /orgs/{org}/dependabot/secrets/{secret_name}');
  assert.equal(narrowed.map((c) => [c.id, c.severity]), [['schema-type-changed', 'breaking']]);
  assert.match(narrowed[0].message, /selected_repository_ids: items\.type changed/);
});

test('lint: every github release against 2026-03-10, 0 uncovered', () => {
  const r = runTool('catalogue', ['lint']);
  assert.is(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /github against an upstream at 2026-03-10: \d+ operations bridged, \d+ unbridgeable, 0 uncovered/);
  assert.match(r.stdout, /warning: catalogue\/github\/changes.yaml:\d+: change pull-answer: GET \/repos\/\{owner\}\/\{repo\}\/pulls\/\{pull_number\}: answer field merge_commit_sha of 2025-12-09 is lost from 2026-03-10 on/);
});

test.run();
