// Version changes on JSON bodies, nested answers and status codes, through a real gateway in front
// of an upstream that speaks only r2 and records what reaches it: each step kind of the demo
// catalogue (json-demo.ts) carries an r1 client's request up and the answer back down, and a client
// already at r2 passes byte for byte both ways.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { quickStop } from '../support/gateway.js';
import { readConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/server.js';
import { jsonDemoCatalogue } from './json-demo.js';
import { recordingUpstream, type Answer as DemoAnswer, type Seen } from '../support/demo-service.js';

interface Answer { status: number; body?: string; type?: string }

/** What the upstream answers, by "METHOD path" (else 200 with what it received). */
const ANSWERS: Record<string, Answer> = {
  'POST /repos/o/r/issues': { status: 201, body: '{"number":1, "id":9007199254740993, "assignees":[{"login":"x"}]}' },
  'GET /repos/o/r/issues': { status: 200, body: '[{"number":1,"assignees":[{"login":"a"},{"login":"b"}]},{"number":2,"assignees":[]}]' },
  'GET /repos/o/r': { status: 200, body: '{"id":9007199254740993, "name":"r"}' },
  'DELETE /app/installations/7': { status: 202, body: '{"message":"queued"}' },
  'POST /user/repos': { status: 451, body: '{"message":"Repository creation is blocked under trade controls","status":"451"}' },
  'GET /user/repos': { status: 200, body: '[{"id":1,"visibility_name":"public"},{"id":2,"visibility_name":"private"}]' },
  'POST /repos/o/r/actions/workflows/w.yml/dispatches': { status: 200, body: '{"workflow_run_id":5}' },
  'GET /rate_limit': { status: 200, body: '{"resources":{"core":{"limit":5000,"remaining":4999},"search":{"limit":30}}}' },
  'GET /search/issues?q=bug': { status: 200, body: '{"total_count":2,"items":[{"number":1,"assignees":[{"login":"a"}]},{"number":2,"assignees":[]}]}' },
  'GET /repos/o/r/events/1': { status: 200, body: '{"id":1,"pull_request":{"number":3}}' },
};

/** The canned answer of a request, else 200 with what it received. */
function answerOf(seen: Seen): DemoAnswer {
  const a = ANSWERS[`${seen.method} ${seen.url}`] ?? { status: 200, body: JSON.stringify({ method: seen.method, url: seen.url }) };
  return { status: a.status, headers: { 'content-type': a.type ?? 'application/json; charset=utf-8' }, body: a.body ?? '' };
}

const test = suite('version changes on JSON bodies, nested answers and status codes');
let up: Awaited<ReturnType<typeof recordingUpstream>>;
let gw: RunningGateway;

test.before(async () => {
  up = await recordingUpstream(answerOf);
  const args = ['--port', '0', '--catalogue', jsonDemoCatalogue(), '--release', 'all', '--upstream', `demo=${up.url}`, ...quickStop([])];
  gw = await startGateway(readConfig(args, {}), { logger: createLogger('silent') });
});
test.after(async () => {
  await gw.close();
  await new Promise((r) => up.server.close(r));
});

/** A request as an r1 client makes it (no version header), or with the headers given. */
async function send(method: string, path: string, body?: string, headers: Record<string, string> = {}) {
  up.seen.length = 0;
  const res = await fetch(`${gw.url}${path}`, { method, body, headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers } });
  return { status: res.status, headers: res.headers, text: await res.text(), sent: up.seen[0] as Seen | undefined };
}
const NEW = { 'X-Demo-Api-Version': '2026-03-10' };

test('list: the singular field joins the list; exact numbers and untouched values keep their text; the answer gets it back', async () => {
  const r = await send('POST', '/repos/o/r/issues', '{"title":"t","assignee":"x","milestone":9007199254740993,"price":1.10}');
  assert.is(r.sent!.body, '{"title":"t","milestone":9007199254740993,"price":1.10,"assignees":["x"]}');
  assert.is(r.sent!.headers['x-demo-api-version'], '2026-03-10');
  assert.is(r.sent!.headers['content-length'], String(Buffer.byteLength(r.sent!.body)));
  assert.is(r.status, 201);
  assert.is(r.text, '{"number":1,"id":9007199254740993,"assignees":[{"login":"x"}],"assignee":{"login":"x"}}');
  assert.is(r.headers.get('x-gateway-migrated'), 'r2 issue-assignees');
  const both = await send('POST', '/repos/o/r/issues', '{"title":"t","assignee":"x","assignees":["y","x"]}');
  assert.equal(JSON.parse(both.sent!.body), { title: 't', assignees: ['y', 'x'] }, 'already in the list: not added twice');
  const joined = await send('POST', '/repos/o/r/issues', '{"title":"t","assignee":"x","assignees":["y"]}');
  assert.equal(JSON.parse(joined.sent!.body), { title: 't', assignees: ['y', 'x'] });
});

test('a body no step changes goes with its bytes; a client at r2 passes byte for byte both ways', async () => {
  const untouched = '{ "title" : "t",\n  "assignees": ["y"] }';
  assert.is((await send('POST', '/repos/o/r/issues', untouched)).sent!.body, untouched);
  const r = await send('POST', '/repos/o/r/issues', untouched, NEW);
  assert.is(r.sent!.body, untouched);
  assert.is(r.text, ANSWERS['POST /repos/o/r/issues'].body, 'the answer as the upstream wrote it');
  assert.is(r.headers.get('x-gateway-migrated'), null);
  const d = await send('DELETE', '/app/installations/7', undefined, NEW);
  assert.is(d.status, 202);
  assert.is(d.text, '{"message":"queued"}');
});

test('map on a body field keeps the YAML type of its new value; rename and default reach nested fields and each item of a list', async () => {
  const r = await send('PATCH', '/repos/o/r', '{"use_squash_pr_title_as_default":true,"security":{"wiki":false},"rules":[{"type":"a","old_param":"p"},{"type":"b"}]}');
  assert.equal(JSON.parse(r.sent!.body), { squash_merge_commit_title: 'PR_TITLE', security: { has_wiki: false, level: 2 }, rules: [{ type: 'a', param: 'p' }, { type: 'b' }] });
  assert.is(r.sent!.url, '/repos/o/r', 'the path as the client sent it');
  const f = await send('PATCH', '/repos/o/r', '{"use_squash_pr_title_as_default":false}');
  assert.equal(JSON.parse(f.sent!.body), { squash_merge_commit_title: 'COMMIT_OR_PR_TITLE', security: { level: 2 } }, 'default makes the object it needs');
});

test('drop never sends the field; default and set send typed constants', async () => {
  const r = await send('POST', '/orgs/acme/teams', '{"name":"t","permission":"push"}');
  assert.equal(JSON.parse(r.sent!.body), { name: 't', privacy: 'secret', notify: true });
  assert.not.match(r.sent!.body, /permission/);
  const kept = await send('POST', '/orgs/acme/teams', '{"name":"t","privacy":"closed"}');
  assert.equal(JSON.parse(kept.sent!.body), { name: 't', privacy: 'closed', notify: true }, 'default keeps what was sent');
  const later = await send('POST', '/orgs/acme/teams', '{"name":"t","notify":false}'); // notify came in r2: not the old client's
  assert.is(later.status, 400);
  assert.match(JSON.parse(later.text).message, /Field 'notify' is not part of POST \/orgs\/\{org\}\/teams at r1: added in r2/);
  const overridden = await send('POST', '/orgs/acme/teams', '{"name":"t","notify":false}', NEW);
  assert.equal(JSON.parse(overridden.sent!.body), { name: 't', notify: false }, 'a client at r2 sends its own value');
});

test('integers: numeric strings become integers (exact beyond doubles); any other string is refused 410, nothing sent', async () => {
  const r = await send('PUT', '/orgs/acme/secrets/S', '{"selected_repository_ids":["12",34,"007","9007199254740993"]}');
  assert.is(r.sent!.body, '{"selected_repository_ids":[12,34,7,9007199254740993]}');
  const bad = await send('PUT', '/orgs/acme/secrets/S', '{"selected_repository_ids":["12","abc"]}');
  assert.is(bad.status, 410);
  assert.match(JSON.parse(bad.text).message, /selected_repository_ids\[\]="abc" is not an integer: the upstream takes integers only since r2/);
  assert.is(bad.sent, undefined);
});

test('unbridgeable values of a body field are refused 410 naming the replacement, never sent; other values pass', async () => {
  const bad = await send('PUT', '/repos/o/r/pulls/3/merge', '{"merge_method":"rebase-legacy"}');
  assert.is(bad.status, 410);
  assert.match(JSON.parse(bad.text).message, /merge_method=rebase-legacy: the upstream \(which speaks r2\) no longer takes this value since r2: the legacy rebase is gone; use merge_method rebase/);
  assert.is(bad.sent, undefined);
  const ok = await send('PUT', '/repos/o/r/pulls/3/merge', '{"merge_method":"squash"}');
  assert.is(ok.sent!.body, '{"merge_method":"squash"}');
});

test('status: 202 → 204 and 200 → 204 drop the body; 451 → 422 keeps the error body', async () => {
  const d = await send('DELETE', '/app/installations/7');
  assert.is(d.status, 204);
  assert.is(d.text, '');
  assert.is(d.headers.get('content-length'), null);
  assert.is(d.headers.get('content-type'), null);
  const w = await send('POST', '/repos/o/r/actions/workflows/w.yml/dispatches', '{"ref":"main"}');
  assert.is(w.status, 204);
  assert.is(w.text, '');
  const t = await send('POST', '/user/repos', '{"name":"x"}');
  assert.is(t.status, 422);
  assert.equal(JSON.parse(t.text), { message: 'Repository creation is blocked under trade controls', status: '451' });
});

test('copy from another path of the same object; in: reaches each item of a search result, an inner object, each item of a list answer', async () => {
  const rate = await send('GET', '/rate_limit');
  assert.equal(JSON.parse(rate.text).rate, { limit: 5000, remaining: 4999 });
  const search = JSON.parse((await send('GET', '/search/issues?q=bug')).text);
  assert.equal(search.items.map((i: { assignee?: unknown }) => i.assignee), [{ login: 'a' }, undefined]);
  const listed = JSON.parse((await send('GET', '/repos/o/r/issues')).text);
  assert.equal(listed.map((i: { assignee?: unknown }) => i.assignee), [{ login: 'a' }, undefined], 'each object of a list answer (no in:)');
  const event = JSON.parse((await send('GET', '/repos/o/r/events/1')).text);
  assert.equal(event, { id: 1, pull_request: { number: 3, merged: false } });
  const repos = JSON.parse((await send('GET', '/user/repos')).text);
  assert.equal(repos, [{ id: 1, visibility: 'public' }, { id: 2, visibility: 'private' }]);
});

test('lost: the answer passes without the field, byte for byte when lost is all its plan says of answers', async () => {
  const r = await send('GET', '/repos/o/r');
  assert.is(r.text, '{"id":9007199254740993, "name":"r"}', 'as the upstream wrote it: nothing was parsed and written again');
  assert.is(r.headers.get('x-gateway-migrated'), 'r2 repo-downloads');
});

test('a move between templates carries the path parameters by name, as the client wrote them', async () => {
  const r = await send('GET', '/repos/o%2Dx/r.js/legacy/7');
  assert.is(r.sent!.url, '/repos/o%2Dx/r.js/items/7');
  assert.is(r.headers.get('x-gateway-migrated'), 'r2 legacy-to-items');
});

test('a JSON body giving a key twice is refused when the plan would rewrite it', async () => {
  const r = await send('POST', '/repos/o/r/issues', '{"title":"t","assignee":"x","assignee":"y"}');
  assert.is(r.status, 400);
  assert.match(JSON.parse(r.text).message, /duplicate key 'assignee'/);
  assert.is(r.sent, undefined);
});

test.run();
