// Issue 44's acceptance on GitHub's real catalogue: a gateway serving every release
// (`--release all`) in front of the GitHub stand-in. Typed path parameters in GitHub's envelope,
// concrete paths forwarded byte for byte, static before templated, removed operations answered as
// each release knew them, the version header, the client's token, Link headers back to the gateway.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { quickStop } from '../support/gateway.js';
import { startGithubUpstream, type GithubUpstream } from '../support/github-upstream.js';
import { startUpstream, type Upstream } from '../support/processes.js';
import { readConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';

const test = suite('GitHub behind the gateway');
let github: GithubUpstream;
let exchange: Upstream;
let gw: RunningGateway;

async function gateway(extra: string[] = []): Promise<RunningGateway> {
  // The stand-in speaks 2022-11-28, GitHub's releases up to 2025-12-09 (2026-03-10 has tests of its own).
  const upstreamRelease = extra.includes('--upstream-release') ? [] : ['--upstream-release', 'github=2025-12-09'];
  const args = ['--port', '0', '--release', 'all', '--upstream', `github=${github.url}`, '--upstream', `exchange=${exchange.url}`, ...upstreamRelease, ...quickStop(extra), ...extra];
  return startGateway(readConfig(args, {}), { logger: createLogger('silent') });
}

test.before(async () => {
  github = await startGithubUpstream('2022-11-28');
  exchange = await startUpstream();
  gw = await gateway();
});
test.after(async () => {
  await gw.close();
  await github.stop();
  await exchange.stop();
});

const get = async (path: string, headers: Record<string, string> = {}, at = gw) => {
  const res = await fetch(`${at.url}${path}`, { headers });
  return { status: res.status, headers: res.headers, body: await res.json() as { message?: string; status?: string; documentation_url?: string } };
};

test("a bad path parameter is refused in GitHub's envelope naming it; a good one is forwarded byte for byte", async () => {
  github.records.length = 0;
  const bad = await get('/repos/o/r/issues/abc');
  assert.is(bad.status, 400);
  assert.match(bad.body.message!, "'abc' for parameter 'issue_number'");
  assert.equal([bad.body.documentation_url, bad.body.status], ['https://docs.github.com/rest', '400']);
  assert.equal(github.records, []);
  const ok = await get('/repos/o/r/issues/7');
  assert.is(ok.status, 200);
  assert.is(github.records[0].url, '/repos/o/r/issues/7');
});

test('GET /gists/public reaches the static operation, not GET /gists/{gist_id}', async () => {
  github.records.length = 0;
  const res = await get('/gists/public');
  assert.is(res.status, 200);
  assert.equal(res.body, [{ id: 'g1', public: true }]);
});

test('a Copilot usage call at 2024-11-06: 410 naming the release before today\'s upstream, nothing sent; forwarded to an upstream still at 2024-11-06', async () => {
  github.records.length = 0;
  const old = await get('/@2024-11-06/orgs/acme/copilot/usage');
  assert.is(old.status, 410);
  assert.match(old.body.message!, 'was removed in 2025-04-09 and cannot be carried to the upstream (which speaks 2025-12-09)');
  const later = await get('/@2025-04-09/orgs/acme/copilot/usage');
  assert.is(later.status, 410);
  assert.match(later.body.message!, 'GET /orgs/{org}/copilot/usage was removed in 2025-04-09; this gateway serves 2025-04-09');
  const unknown = await get('/repos/o/r/frobnicate');
  assert.equal([unknown.status, unknown.body.status], [404, '404']);
  assert.equal(github.records, []);
  const still = await gateway(['--upstream-release', 'github=2024-11-06']);
  try {
    const res = await fetch(`${still.url}/@2024-11-06/orgs/acme/copilot/usage`);
    await res.text();
    assert.is(github.records.at(-1)?.url, '/orgs/acme/copilot/usage'); // the stand-in has no such answer: what matters is it was sent
  } finally { await still.close(); }
});

test('no version header and 2022-11-28 answer as 2025-12-09; an unknown version is 400 naming the supported ones', async () => {
  assert.is((await get('/rate_limit')).headers.get('x-gateway-release'), '2025-12-09');
  assert.is((await get('/rate_limit', { 'X-GitHub-Api-Version': '2022-11-28' })).headers.get('x-gateway-release'), '2025-12-09');
  const bad = await get('/rate_limit', { 'X-GitHub-Api-Version': '2099-01-01' });
  assert.is(bad.status, 400);
  assert.match(bad.body.message!, "X-GitHub-Api-Version '2099-01-01' is not a supported version; supported: 2022-11-28");
  const other = await get('/@3.12.0/rate_limit'); // an exchange release never pins a GitHub request
  assert.is(other.status, 400);
  assert.match(other.body.message!, "Release '3.12.0' is not a release of github");
});

test("the client's Authorization reaches GitHub unchanged; Link headers point back at the gateway", async () => {
  github.records.length = 0;
  const res = await get('/repos/octo/hello/issues', { Authorization: 'token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB' });
  assert.is(github.records[0].headers.authorization, 'token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB');
  const link = res.headers.get('link')!;
  const origin = new URL(gw.url).origin;
  assert.match(link, `<${origin}/repos/octo/hello/issues?page=2>; rel="next"`);
  assert.not.match(link, 'api.github.com');
  assert.not.match(link, github.url);
});

test.run();
