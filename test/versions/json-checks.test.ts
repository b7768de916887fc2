// Lint of the JSON and status vocabulary on the demo catalogue (json-demo.ts) with one thing changed:
// a step naming a body field the operation does not have, a path its schema does not have, a list
// step on a query parameter, a rename leaving its object, an answer field written as a path, a body
// field removed with nothing bridging it, a move whose target template has a parameter the old path
// lacks: each a file:line error. Lost answer fields are warnings; `plan` shows the JSON and status steps.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { checkChanges } from '../../src/catalogue/changes/check.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { CatalogueError, type Problem } from '../../src/catalogue/problems.js';
import { applyJson } from '../../src/catalogue/changes/apply.js';
import type { JsonStep } from '../../src/catalogue/changes/plan.js';
import { runTool } from '../support/tools.js';
import { jsonDemoCatalogue } from './json-demo.js';

const test = suite('version changes on JSON: checks and plans');

function problemsOf(dir: string): Problem[] {
  try {
    const { catalogue } = loadCatalogue(dir, { modelCache: false });
    return checkChanges(catalogue.services.find((s) => s.id === 'demo')!).problems;
  } catch (e) {
    if (e instanceof CatalogueError) return e.problems;
    throw e;
  }
}
const lineOf = (dir: string, needle: string) => readFileSync(join(dir, 'demo/changes.yaml'), 'utf8').split('\n').findIndex((l) => l.includes(needle)) + 1;

/**
 * The demo with `from` replaced by `to` in changes.yaml has one problem with the step (at the line
 * holding `to`), and any other is what a composed plan of that change then lacks ("plan …").
 */
function oneProblem(from: string, to: string, message: RegExp): void {
  const dir = jsonDemoCatalogue({ changes: (t) => { assert.ok(t.includes(from), from); return t.replace(from, to); } });
  const p = problemsOf(dir);
  const steps = p.filter((x) => !/^change [\w-]+: plan /.test(x.message));
  assert.is(steps.length, 1, p.map((x) => x.message).join('\n'));
  assert.match(steps[0].message, message);
  assert.match(steps[0].file, /demo\/changes\.yaml$/);
  assert.is(steps[0].line, lineOf(dir, to.split('\n')[0].trim()));
}

test('the demo as written: no problem, two lost fields listed as warnings by lint', () => {
  const dir = jsonDemoCatalogue();
  assert.equal(problemsOf(dir), []);
  const r = runTool('catalogue', ['lint', '--catalogue', dir]);
  assert.is(r.status, 0, r.stdout);
  assert.match(r.stdout, new RegExp(`warning: \\S*demo/changes\\.yaml:${lineOf(dir, 'lost: [has_downloads]')}: change repo-downloads: GET /repos/\\{owner\\}/\\{repo\\}: answer field has_downloads of r1 is lost from r2 on`));
  assert.match(r.stdout, /answer field merge_commit_sha \(in pull_request\) of r1 is lost from r2 on/);
  assert.match(r.stdout, /demo against an upstream at r2: \d+ operations bridged, 0 unbridgeable, 0 uncovered/);
  assert.match(r.stdout, /; 2 warning\(s\)/);
});

test('a body field or path the operation does not have', () => {
  oneProblem("security.wiki: security.has_wiki", "security.wikis: security.has_wiki", /renames "security\.wikis": security has no field "wikis" \(it has wiki, has_wiki, level\)/);
  oneProblem("'rules[].old_param': 'rules[].param'", "'rules.old_param': 'rules.param'", /renames "rules\.old_param": rules is a list: write rules\[\]\.old_param/);
  oneProblem('- drop: [permission]', '- drop: [permission, privcy]', /drops parameter "privcy", which POST \/orgs\/\{org\}\/teams does not have at r1/);
  oneProblem("- integers: ['selected_repository_ids[]']", "- integers: ['selected_repository_ids[x]']", /makes integers of "selected_repository_ids\[x\]" is not a path/);
});

test('list and paths reach JSON body fields only; a rename stays in its object', () => {
  oneProblem("- integers: ['selected_repository_ids[]']", "- list: { secret_name: names }", /lists "secret_name": "secret_name" is not a body field of PUT \/orgs\/\{org\}\/secrets\/\{secret_name\} at r1/);
  oneProblem("security.wiki: security.has_wiki", "security.wiki: has_wiki.x", /renames "security\.wiki" to "has_wiki\.x": the new name stays in the field's object/);
});

test('answer fields are named in their object; in: reaches nested ones', () => {
  oneProblem("- copy: { rate: resources.core }", "- copy: { resources.rate: resources.core }", /answer field "resources\.rate" is a path: name the field in its object and reach the object with in: \(in: resources\)/);
});

test('a body field removed with nothing bridging it is uncovered; a move must fill the target template', () => {
  const dir = jsonDemoCatalogue({ changes: (t) => t.replace('      - drop: [permission]\n', '') });
  const p = problemsOf(dir);
  assert.ok(p.some((x) => /POST \/orgs\/\{org\}\/teams: parameter permission was removed at r2 \(upstream speaks r2\)/.test(x.message)), p.map((x) => x.message).join('\n'));
  oneProblem('- move: GET /repos/{owner}/{repo}/items/{number}', '- move: GET /repos/{owner}/{repo}/events/{event_id}',
    /moves GET \/repos\/\{owner\}\/\{repo\}\/legacy\/\{number\} to GET \/repos\/\{owner\}\/\{repo\}\/events\/\{event_id\}, whose path parameter \{event_id\} GET \S+ has no value for/);
});

test('plan shows the JSON steps and the answer steps, status included', () => {
  const dir = jsonDemoCatalogue();
  const plan = (op: string) => JSON.parse(runTool('catalogue', ['plan', 'r1', op, '--service', 'demo', '--catalogue', dir]).stdout);
  const issues = plan('POST /repos/{owner}/{repo}/issues');
  assert.equal(issues.request.map((p: { kind: string }) => p.kind), ['json']);
  assert.equal(issues.request[0].steps[0].kind, 'list');
  assert.equal(issues.request[0].steps[0].names, { assignee: 'assignees' });
  assert.equal(issues.answer.map((s: { kind: string }) => s.kind), ['copy', 'restore']);
  const del = plan('DELETE /app/installations/{installation_id}');
  assert.equal(del.answer[0].codes, { 202: 204 });
  const merge = plan('PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge');
  assert.equal(merge.request[0].steps[0], { kind: 'guard', field: 'merge_method', values: ['rebase-legacy'], release: 'r2', message: 'the upstream (which speaks r2) no longer takes this value since r2: the legacy rebase is gone; use merge_method rebase' });
});

test('the applier alone: a rename swaps at once, a null singular adds nothing, an unchanged object says so', () => {
  const at = { file: 'changes.yaml', line: 1 };
  const body: Record<string, unknown> = { a: 1, b: 2, assignee: null };
  const steps: JsonStep[] = [{ kind: 'rename', names: { a: 'b', b: 'a' }, release: 'r2', at }, { kind: 'list', names: { assignee: 'assignees' }, release: 'r2', at }];
  assert.ok(applyJson(body, steps));
  assert.equal(body, { b: 1, a: 2 });
  assert.not.ok(applyJson({ c: 1 }, steps), 'nothing to change');
});

test.run();
