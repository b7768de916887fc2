// The day 2022-11-28 retires: an old @octokit/rest (21, the last major with projects classic), sending
// no version header, through a gateway whose GitHub upstream speaks only 2026-03-10 (the stand-in
// answers any other X-GitHub-Api-Version 400). Each request is carried up from 2025-12-09 by
// catalogue/github/changes.yaml, sent with X-GitHub-Api-Version: 2026-03-10, and its answer carried
// back; a client that asks for 2026-03-10 itself passes byte for byte both ways.
import { Octokit } from 'octokit-rest-21';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { quickStop } from '../support/gateway.js';
import { startGithubUpstream, type GithubRecord, type GithubUpstream } from '../support/github-upstream.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { readConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';

const test = suite('@octokit/rest 21 through the gateway, GitHub speaking only 2026-03-10');
let github: GithubUpstream;
let exchange: Upstream;
let gw: RunningGateway;
let octokit: Octokit;
/** Octokit logs each failed request and its deprecated methods (projects classic): the test checks them itself. */
const QUIET = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

test.before(async () => {
  github = await startGithubUpstream('2026-03-10');
  exchange = await startUpstream();
  const args = ['--port', '0', '--release', 'all', '--upstream', `github=${github.url}`, '--upstream-release', 'github=2026-03-10', '--upstream', `exchange=${exchange.url}`, ...quickStop([])];
  gw = await startGateway(readConfig(args, {}), { logger: createLogger('silent') });
  octokit = new Octokit({ baseUrl: gw.url, auth: 'ghp_client0wnToken0123456789abcdefABCDEF', request: { retries: 0 }, log: QUIET });
});
test.after(async () => {
  await gw.close();
  await github.stop();
  await exchange.stop();
});

/** What the stand-in received for one call, the call's result, and that it came as 2026-03-10. */
async function sent<T>(call: () => Promise<T>): Promise<{ result: T; got: GithubRecord[] }> {
  github.records.length = 0;
  const result = await call();
  for (const r of github.records) assert.is(r.headers['x-github-api-version'], '2026-03-10', `${r.method} ${r.url}`);
  return { result, got: [...github.records] };
}
const failure = (p: Promise<unknown>) => p.then(() => null, (e: { status: number; message: string }) => e);

test('issues.create with assignee: the upstream gets assignees [x] and no assignee; the client gets assignee back, and so does each issue it lists', async () => {
  const { result: issue, got } = await sent(() => octokit.issues.create({ owner: 'octo', repo: 'hello', title: 'Found a bug', assignee: 'x' }));
  assert.is(got.length, 1);
  const body = JSON.parse(got[0].body);
  assert.equal(body.assignees, ['x']);
  assert.ok(!('assignee' in body), got[0].body);
  assert.ok(!/assignee"/.test(got[0].answer!), 'the upstream answered without the singular field');
  assert.is(issue.status, 201);
  assert.is(issue.headers['x-gateway-release'], '2025-12-09');
  assert.is(issue.headers['x-gateway-migrated'], '2026-03-10 issue-created-assignee');
  assert.equal(issue.data.assignee, issue.data.assignees![0]);
  assert.is(issue.data.assignee!.login, 'x');
  const { result: listed } = await sent(() => octokit.issues.listForRepo({ owner: 'octo', repo: 'hello' }));
  assert.equal(listed.data.map((i) => i.assignee?.login ?? i.assignee), ['octocat', null], 'from assignees[0], null when there is none');
});

test('rateLimit.get has rate (resources.core); meta.root has authorizations_url and hub_url', async () => {
  const { result: rate, got } = await sent(() => octokit.rateLimit.get());
  assert.ok(!/"rate"/.test(got[0].answer!));
  assert.equal(rate.data.rate, rate.data.resources.core);
  const { result: root } = await sent(() => octokit.meta.root());
  assert.is(root.data.authorizations_url, 'https://api.github.com/authorizations');
  assert.is(root.data.hub_url, 'https://api.github.com/hub');
});

test('apps.deleteInstallation: 204 (the upstream answered 202); the workflow dispatch: 204 and no body (the upstream answered 200 with the run)', async () => {
  const { result: deleted, got } = await sent(() => octokit.apps.deleteInstallation({ installation_id: 7 }));
  assert.is(got[0].status, 202);
  assert.is(deleted.status, 204);
  const { result: dispatched, got: d } = await sent(() => octokit.actions.createWorkflowDispatch({ owner: 'octo', repo: 'hello', workflow_id: 'ci.yml', ref: 'main' }));
  assert.is(d[0].status, 200);
  assert.match(d[0].answer!, /workflow_run_id/);
  assert.is(dispatched.status, 204);
  assert.ok(!dispatched.data, 'no body');
  assert.is(dispatched.headers['content-type'], undefined);
  assert.is(dispatched.headers['content-length'], undefined);
});

test('repos.update use_squash_pr_title_as_default: true is sent as squash_merge_commit_title PR_TITLE; teams.create never sends permission', async () => {
  const { result: repo, got } = await sent(() => octokit.repos.update({ owner: 'octo', repo: 'hello', use_squash_pr_title_as_default: true }));
  assert.equal(JSON.parse(got[0].body), { squash_merge_commit_title: 'PR_TITLE' });
  assert.is(repo.data.squash_merge_commit_title, 'PR_TITLE');
  const { result: team, got: t } = await sent(() => octokit.teams.create({ org: 'acme', name: 'reviewers', permission: 'push' }));
  assert.equal(JSON.parse(t[0].body), { name: 'reviewers' });
  assert.is(team.status, 201);
});

test('a repository creation blocked by trade controls: 451 upstream, 422 to the client, its message kept', async () => {
  const { result: e, got } = await sent(() => failure(octokit.repos.createForAuthenticatedUser({ name: 'blocked' })));
  assert.is(got[0].status, 451);
  assert.is(e?.status, 422);
  assert.match(e?.message ?? '', /Repository creation is blocked by trade controls/);
  const { result: org } = await sent(() => failure(octokit.repos.createInOrg({ org: 'acme', name: 'blocked' })));
  assert.is(org?.status, 422);
});

test('a projects-classic call (removed at 2025-12-09): RequestError 410 naming the replacement, nothing sent', async () => {
  github.records.length = 0;
  const e = await failure(octokit.projects.listForOrg({ org: 'acme' }));
  assert.is(e?.status, 410);
  assert.match(e?.message ?? '', /GET \/orgs\/\{org\}\/projects was removed in 2025-12-09.*use GET \/orgs\/\{org\}\/projectsV2/);
  assert.equal(github.records, []);
});

test('a client asking for 2026-03-10 with assignees passes byte for byte both ways', async () => {
  github.records.length = 0;
  const body = '{ "title": "Found a bug",\n  "assignees": ["x"], "milestone": 9007199254740993 }';
  const res = await fetch(`${gw.url}/repos/octo/hello/issues`, {
    method: 'POST', body,
    headers: { 'content-type': 'application/json', 'x-github-api-version': '2026-03-10', authorization: 'token ghp_client0wnToken0123456789abcdefABCDEF' },
  });
  const text = await res.text();
  assert.is(github.records.length, 1);
  assert.is(github.records[0].body, body, 'the bytes the client sent');
  assert.is(github.records[0].headers['x-github-api-version'], '2026-03-10');
  assert.is(res.status, 201);
  assert.is(text, github.records[0].answer, 'the bytes the upstream answered');
  assert.is(res.headers.get('x-gateway-release'), '2026-03-10');
  assert.is(res.headers.get('x-gateway-migrated'), null);
});

test.run();
