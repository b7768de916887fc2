// Version changes are checked like the rest of the catalogue: a change that touches nothing, a rename
// of a parameter that does not exist, two changes that conflict, an event nothing bridges — each a
// file:line error that lint prints and that stops a gateway from starting. Composed plans fold
// chains (a→b→c becomes a→c). Checked on copies of the real catalogue with one thing changed.
import { newestExchangeRelease, reEscape } from '../support/newest.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { CatalogueError } from '../../src/catalogue/problems.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { checkChanges } from '../../src/catalogue/changes/check.js';
import { composePlan } from '../../src/catalogue/changes/compose.js';
import { upstreamIndex } from '../../src/catalogue/changes/lookup.js';
import { ROOT } from '../support/processes.js';
import { runTool } from '../support/tools.js';
import { shippedCopy } from '../catalogue/folder.js';

const NEWEST = newestExchangeRelease();
const test = suite('version changes: checks, coverage, composition');
const CHANGES = readFileSync(join(ROOT, 'catalogue/exchange/changes.yaml'), 'utf8');

/** A copy of the catalogue with changes.yaml edited (and extra files); returns its folder. */
function copy(edit: (text: string) => string, extra: Record<string, string> = {}): string {
  const dir = shippedCopy('gw-versions-');
  writeFileSync(join(dir, 'exchange/changes.yaml'), edit(CHANGES));
  for (const [f, text] of Object.entries(extra)) writeFileSync(join(dir, f), text);
  return dir;
}
const addChanges = (yaml: string) => (text: string) => text.replace(/^changes:\n/m, `changes:\n${yaml}`);
const lineOf = (dir: string, needle: string) => readFileSync(join(dir, 'exchange/changes.yaml'), 'utf8').split('\n').findIndex((l) => l.includes(needle)) + 1;

/** The change problems of a catalogue copy: the loader refuses a catalogue whose changes do not check out against the default upstream. */
function problemsOf(dir: string) {
  try {
    const { catalogue } = loadCatalogue(dir, { modelCache: false });
    return checkChanges(catalogue.services.find((s) => s.id === 'exchange')!).problems;
  } catch (e) {
    if (e instanceof CatalogueError) return e.problems;
    throw e;
  }
}

function lint(dir: string): { code: number; out: string } {
  // The checkout's cache folder, as a user's lint uses it: the copies' unchanged files' parses and
  // schema verdicts are kept there (a cache folder of its own per copy made each lint a cold one).
  const r = runTool('catalogue', ['lint', '--catalogue', dir]);
  return { code: r.status, out: r.stdout };
}

test('the shipped catalogue: every breaking event up to the newest release bridged or declared, lint says so', () => {
  const r = lint(join(ROOT, 'catalogue'));
  assert.is(r.code, 0, r.out);
  const m = new RegExp(`exchange against an upstream at ${reEscape(NEWEST)}: (\\d+) operations bridged, (\\d+) unbridgeable, 0 uncovered`).exec(r.out);
  assert.ok(m, r.out);
  assert.ok(Number(m![1]) >= 18, `${m![1]} bridged`);
});

test('a change on an operation that does not exist before its release touches nothing: file:line error', () => {
  const dir = copy(addChanges(`  - id: ghost\n    release: 3.6.0\n    operation: GET /sapi/v1/margin/ghost\n    source: test\n    request:\n      - move: GET /sapi/v1/margin/allAssets\n`));
  const p = problemsOf(dir).find((x) => x.message.includes('ghost'));
  assert.ok(p, 'reported');
  assert.match(p!.message, /touches nothing: GET \/sapi\/v1\/margin\/ghost does not exist at 3\.5\.1/);
  assert.match(p!.file, /exchange\/changes\.yaml$/);
  assert.is(p!.line, lineOf(dir, 'id: ghost'));
});

test('renaming a parameter the operation does not have: error at the step\'s line; lint fails with it', () => {
  const dir = copy(addChanges(`  - id: bad-rename\n    release: 3.7.0\n    operation: GET /sapi/v1/margin/allAssets\n    source: test\n    request:\n      - rename: { assetName: asset }\n`));
  const p = problemsOf(dir).find((x) => x.message.includes('bad-rename'));
  assert.ok(p);
  assert.match(p!.message, /renames parameter "assetName", which GET \/sapi\/v1\/margin\/allAssets does not have at 3\.6\.0/);
  assert.is(p!.line, lineOf(dir, 'rename: { assetName: asset }'));
  const r = lint(dir);
  assert.is(r.code, 1);
  assert.match(r.out, new RegExp(`error: \\S*exchange/changes\\.yaml:${p!.line}: change bad-rename: renames parameter`));
});

test('two changes of one operation at one release conflict', () => {
  const dir = copy(addChanges(`  - id: second-loan\n    release: 3.6.0\n    operation: POST /sapi/v1/margin/loan\n    source: test\n    request:\n      - move: POST /sapi/v1/margin/borrow-repay\n      - set: { type: REPAY }\n`));
  const p = problemsOf(dir).find((x) => x.message.includes('conflicts'));
  assert.ok(p);
  assert.match(p!.message, /margin-loan-to-borrow-repay|second-loan/);
});

test('a constant the target does not take is reported by the plan check', () => {
  const dir = copy((t) => t.replace('- set: { type: BORROW }', '- set: { type: LEND }'));
  const p = problemsOf(dir).find((x) => x.message.includes('type=LEND'));
  assert.ok(p, 'reported');
  assert.match(p!.message, new RegExp(`is not a value POST /sapi/v1/margin/borrow-repay takes at ${reEscape(NEWEST)}`));
});

test('an undeclared removal is uncovered: lint names the endpoint at its own line and fails', () => {
  const dir = copy((t) => t.split('\n').filter((l) => !l.includes('operation: POST /sapi/v1/bswap/swap,')).join('\n'));
  const r = lint(dir);
  assert.is(r.code, 1);
  assert.match(r.out, /error: \S*exchange\/endpoints\/bswap\.yaml:\d+: POST \/sapi\/v1\/bswap\/swap: the operation was removed at 3\.7\.0/);
  assert.match(r.out, /1 uncovered/);
});

test('websocket items: an undeclared stream removal is uncovered at the stream\'s line; a change may not carry a websocket frame to a REST operation', () => {
  const dir = copy((t) => t.replace(/  - release: 2\.0\.0\n    operation: stream !bookTicker\n(    .*\n)+?(?=\n|  -)/, ''));
  const r = lint(dir);
  assert.is(r.code, 1, r.out);
  assert.match(r.out, /error: \S*exchange\/streams\.yaml:\d+: stream !bookTicker: the operation was removed at 2\.0\.0/);
  assert.match(r.out, /websocket-API methods bridged, \d+ unbridgeable, 0 uncovered; \d+ streams bridged, \d+ unbridgeable, 1 uncovered/);
  const cross = copy((t) => t.replace('- move: ws-api orderList.place.oco', '- move: POST /api/v3/orderList/oco'));
  const p = problemsOf(cross).find((x) => x.message.includes('another kind of operation'));
  assert.ok(p, 'reported');
  assert.is(p!.line, lineOf(cross, '- move: POST /api/v3/orderList/oco'));
});

test('a move may land on an operation published a release after the removal: carried once the upstream has it, 410 naming it before', () => {
  const { catalogue } = loadCatalogue(join(ROOT, 'catalogue'));
  const s = catalogue.services.find((x) => x.id === 'exchange')!;
  const at = (id: string) => s.releases.findIndex((r) => r.id === id);
  const op = 'POST /sapi/v1/loan/flexible/repay';
  const plan = composePlan(s, op, at('3.5.1'), upstreamIndex(s))!;
  assert.equal([plan.target, plan.refuse, plan.problems, plan.applied.map((a) => a.id)], ['POST /sapi/v2/loan/flexible/repay', undefined, [], ['flexible-loan-repay-to-v2']]);
  const early = composePlan(s, op, at('3.5.1'), at('3.7.0'))!;
  assert.equal(early.refuse, { release: '3.7.0', replacement: 'POST /sapi/v2/loan/flexible/repay', reason: "POST /sapi/v2/loan/flexible/repay only arrives at 3.8.0, after the upstream's release" });
  assert.equal(checkChanges(s, '3.7.0').problems, [], 'an upstream between the removal and the successor is no catalogue error');
});

test('a chain of renames composes: a → b at 2.0.0, b → c at 3.0.0 is one rename a → c', () => {
  const endpoint = `# yaml-language-server: $schema=../../schema/endpoints.schema.json
module: chain-test
endpoints:
  - method: GET
    path: /sapi/v1/test/chain
    security: NONE
    parameters:
      - { name: a, required: true, removed: 2.0.0 }
      - { name: b, required: true, added: 2.0.0, removed: 3.0.0 }
      - { name: c, required: true, added: 3.0.0 }
      - { name: side, enum: TransferType }
`;
  const dir = copy(addChanges(`  - { id: a-to-b, release: 2.0.0, operation: GET /sapi/v1/test/chain, source: test, request: [ { rename: { a: b } } ] }
  - { id: b-to-c, release: 3.0.0, operation: GET /sapi/v1/test/chain, source: test, request: [ { rename: { b: c } }, { map: { parameter: c, values: { x: y } } } ] }
`), { 'exchange/endpoints/chain-test.yaml': endpoint });
  const { catalogue } = loadCatalogue(dir, { modelCache: false });
  const s = catalogue.services.find((x) => x.id === 'exchange')!;
  const at = (id: string) => s.releases.findIndex((r) => r.id === id);
  const plan = composePlan(s, 'GET /sapi/v1/test/chain', at('1.5.0'), upstreamIndex(s))!;
  assert.equal(plan.applied.map((a) => a.id), ['a-to-b', 'b-to-c']);
  assert.is(plan.request.length, 1);
  const seg = (plan.request[0] as { segment: { names: Record<string, string>; values: Record<string, Record<string, string>> } }).segment;
  assert.equal(seg.names, { a: 'c' });
  assert.equal(seg.values, { a: { x: 'y' } });
  assert.equal(plan.problems, []);
  const mid = composePlan(s, 'GET /sapi/v1/test/chain', at('2.0.0'), upstreamIndex(s))!;
  assert.equal((mid.request[0] as { segment: { names: Record<string, string> } }).segment.names, { b: 'c' });
  assert.is(composePlan(s, 'GET /sapi/v1/test/chain', at('3.0.0'), upstreamIndex(s)), null, 'nothing changes after 3.0.0: no plan');
});

test('plan CLI: the composed plan of the margin loan at 3.5.1', () => {
  const r = runTool('catalogue', ['plan', '3.5.1', 'POST /sapi/v1/margin/loan']);
  assert.is(r.status, 0, r.stderr);
  const plan = JSON.parse(r.stdout);
  assert.is(plan.target, 'POST /sapi/v1/margin/borrow-repay');
  assert.equal(plan.applied, [{ release: '3.6.0', id: 'margin-loan-to-borrow-repay' }]);
  assert.equal(plan.request[0].segment.sets, { type: 'BORROW' });
  assert.equal(plan.security, { from: 'SIGNED', to: 'SIGNED' });
  assert.is(plan.needsKey, true);
});

test.run();
