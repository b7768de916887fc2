// GitHub's own client through the gateway: @octokit/rest 22 (today's) with baseUrl at a gateway
// serving GitHub's releases in front of the GitHub stand-in. Its calls work and carry the client's
// token upstream; a call the served release lacks is a RequestError with the gateway's message; its
// paginate follows Link headers that stay on the gateway. The stand-in speaks 2022-11-28, the version of
// release 2025-12-09: the gateway is told so (--upstream-release), as the newest release is 2026-03-10.
import { Octokit } from '@octokit/rest';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { quickStop } from '../support/gateway.js';
import { startGithubUpstream, type GithubUpstream } from '../support/github-upstream.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { readConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';

const test = suite('@octokit/rest through the gateway');
let github: GithubUpstream;
let exchange: Upstream;
let gw: RunningGateway;
let octokit: Octokit;

test.before(async () => {
  github = await startGithubUpstream('2022-11-28');
  exchange = await startUpstream();
  const args = ['--port', '0', '--release', 'all', '--upstream', `github=${github.url}`, '--upstream-release', 'github=2025-12-09', '--upstream', `exchange=${exchange.url}`, ...quickStop([])];
  gw = await startGateway(readConfig(args, {}), { logger: createLogger('silent') });
  octokit = new Octokit({ baseUrl: gw.url, auth: 'ghp_client0wnToken0123456789abcdefABCDEF', request: { retries: 0 } });
});
test.after(async () => {
  await gw.close();
  await github.stop();
  await exchange.stop();
});

test('issues.get, pulls.list, rateLimit.get and meta.root answer as GitHub does, the token passed on', async () => {
  github.records.length = 0;
  const issue = await octokit.issues.get({ owner: 'octo', repo: 'hello', issue_number: 7 });
  assert.is(issue.status, 200);
  assert.is(issue.data.number, 7);
  assert.is(issue.headers['x-gateway-release'], '2025-12-09');
  const pulls = await octokit.pulls.list({ owner: 'octo', repo: 'hello' });
  assert.is(pulls.data[0].number, 7);
  const rate = await octokit.rateLimit.get();
  assert.is(rate.data.resources.core.limit, 5000);
  const root = await octokit.meta.root();
  assert.is(root.status, 200);
  assert.equal(github.records.map((r) => `${r.method} ${r.url.split('?')[0]}`), ['GET /repos/octo/hello/issues/7', 'GET /repos/octo/hello/pulls', 'GET /rate_limit', 'GET /']);
  for (const r of github.records) {
    assert.is(r.headers.authorization, 'token ghp_client0wnToken0123456789abcdefABCDEF');
    assert.is(r.headers['x-github-api-version'], '2022-11-28'); // the value of the release the upstream speaks
  }
});

test("a call the served release lacks is a RequestError with the gateway's message, nothing sent", async () => {
  github.records.length = 0;
  const gone = await octokit.request('GET /orgs/{org}/copilot/usage', { org: 'acme' }).then(() => null, (e: { status: number; message: string }) => e);
  assert.is(gone?.status, 410);
  assert.match(gone?.message ?? '', /GET \/orgs\/\{org\}\/copilot\/usage was removed in 2025-04-09; this gateway serves 2025-12-09; use GET \/orgs\/\{org\}\/copilot\/metrics/);
  const unknown = await octokit.request('GET /repos/{owner}/{repo}/no-such-thing', { owner: 'o', repo: 'r' }).then(() => null, (e: { status: number; message: string }) => e);
  assert.is(unknown?.status, 404);
  assert.match(unknown?.message ?? '', /no endpoint GET \/repos\/o\/r\/no-such-thing in the catalogue/);
  const bad = await octokit.issues.get({ owner: 'o', repo: 'r', issue_number: 'x' as unknown as number }).then(() => null, (e: { status: number; message: string }) => e);
  assert.is(bad?.status, 400);
  assert.match(bad?.message ?? '', /Invalid value 'x' for parameter 'issue_number'/);
  assert.equal(github.records, []);
});

test("paginate follows the Link headers, which point at the gateway", async () => {
  github.records.length = 0;
  const all = await octokit.paginate(octokit.issues.listForRepo, { owner: 'octo', repo: 'hello' });
  assert.equal(all.map((i) => i.number), [1, 2, 3]);
  assert.equal(github.records.map((r) => r.url), ['/repos/octo/hello/issues', '/repos/octo/hello/issues?page=2']);
});

test.run();
