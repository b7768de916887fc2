// The `bridge:` step and `events:` of changes.yaml (src/catalogue/changes/bridges.ts): a bridge must be
// one the code has, with one of its actions and a replacement that exists; a bridge feeding a stream
// states the event shapes it maps; a stream change without a bridge is still refused; and lint's
// coverage counts the listen-key operations (spot and margin) as bridged; a bridge subscribing with a
// token declares a token that exists.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { CatalogueError } from '../../src/catalogue/problems.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { checkChanges } from '../../src/catalogue/changes/check.js';
import { fillTemplate, placeholderPath } from '../../src/catalogue/changes/bridges.js';
import { ROOT } from '../support/processes.js';
import { shippedCopy } from '../catalogue/folder.js';

const test = suite('user data: the bridge step of the change vocabulary');
const CHANGES = readFileSync(join(ROOT, 'catalogue/exchange/changes.yaml'), 'utf8');

/** The change problems of a copy of the catalogue whose changes.yaml is edited. */
function problems(edit: (text: string) => string): string[] {
  const dir = shippedCopy('gw-bridge-');
  writeFileSync(join(dir, 'exchange/changes.yaml'), edit(CHANGES));
  try {
    const { catalogue } = loadCatalogue(dir, { modelCache: false });
    return checkChanges(catalogue.services.find((s) => s.id === 'exchange')!).problems.map((p) => p.message);
  } catch (e) {
    if (e instanceof CatalogueError) return e.problems.map((p) => p.message);
    throw e;
  }
}

test('the shipped catalogue: every listen-key operation is bridged, none uncovered', () => {
  const { catalogue } = loadCatalogue(join(ROOT, 'catalogue'), { modelCache: false });
  const { problems: found, coverage } = checkChanges(catalogue.services.find((s) => s.id === 'exchange')!);
  assert.equal(found, []);
  for (const op of ['POST /api/v3/userDataStream', 'PUT /api/v3/userDataStream', 'DELETE /api/v3/userDataStream', 'ws-api userDataStream.start',
    'ws-api userDataStream.ping', 'ws-api userDataStream.stop', 'stream <listenKey>']) assert.ok(coverage!.bridged.includes(op), op);
  for (const path of ['/sapi/v1/userDataStream', '/sapi/v1/userDataStream/isolated']) {
    for (const method of ['POST', 'PUT', 'DELETE']) assert.ok(coverage!.bridged.includes(`${method} ${path}`), `${method} ${path}`);
  }
  assert.equal(coverage!.uncovered, []);
});

test('a bridge subscribing with a token: its create must declare the token; the token\'s operation, fields and scope must be real', () => {
  const token = "{ from: POST /sapi/v1/userListenToken, answer: { token: '<token>', expirationTime: '<expiresAt>' }, params: { listenToken: '<token>' } }";
  const isolated = "scope: &isolated { isIsolated: true, symbol: '<symbol>' }";
  const found = (list: string[], text: string) => assert.ok(list.some((m) => m.includes(text)), `${text}\n${list.join('\n')}`);
  // Two copies of the catalogue (each load takes a second), each with several independent mistakes.
  const broken = problems((t) => t.replace(`&mlt-token ${token}`, `&mlt-token ${token.replace('userListenToken', 'userListenTokens').replace("'<expiresAt>'", '0').replace('listenToken:', 'token:')}`)
    .replace(isolated, isolated.replace('<symbol>', '<pair>'))
    .replace('action: renew, via: ws-api userDataStream.subscribe.signature }', 'action: renew, via: ws-api userDataStream.subscribe.signature, scope: { symbol: x } }'));
  found(broken, 'token from POST /sapi/v1/userListenTokens, which does not exist at 2026.01.21 nor after it');
  found(broken, 'token.answer must show where "<expiresAt>" sits in the answer of POST /sapi/v1/userListenTokens');
  found(broken, 'token.params: ws-api userDataStream.subscribe.listenToken has no parameter "token"');
  found(broken, 'scope symbol: "<pair>" is not a parameter of POST /sapi/v1/userDataStream/isolated');
  found(broken, 'bridge listenKeys subscribes with its key: it takes no token or scope');
  const missing = problems((t) => t.replace(`, token: &mlt-token ${token}`, '').replace('token: *mlt-token', `token: ${token}`).replace(isolated, isolated.replace('isIsolated', 'isolated')));
  found(missing, 'bridge marginListenKeys create subscribes with a token: the step must declare it');
  found(missing, 'scope: POST /sapi/v1/userListenToken has no parameter "isolated"');
});

test('the subscription id field its events name must be a parameter of the method that closes', () => {
  const renamed = problems((t) => t.replace("upstream: { subscriptionId: '<subscriptionId>', event: '<event>' }", "upstream: { subId: '<subscriptionId>', event: '<event>' }"));
  assert.ok(renamed.some((m) => m.includes('bridge listenKeys closes via ws-api userDataStream.unsubscribe, which has no parameter "subId" (the subscription id its events name: "<subscriptionId>")')), renamed.join('\n'));
  assert.equal(problems((t) => t), []);
});

test('an unknown bridge, an unknown action, a replacement that does not exist: each reported', () => {
  assert.ok(problems((t) => t.replace('bridge: { name: listenKeys, action: renew,', 'bridge: { name: listenKeyz, action: renew,'))
    .some((m) => m.includes('bridge "listenKeyz" is not a bridge in src/catalogue/changes/bridges.ts')));
  assert.ok(problems((t) => t.replace('action: renew,', 'action: extend,'))
    .some((m) => m.includes('bridge listenKeys has no action "extend" (valid: create, renew, close, feed)')));
  assert.ok(problems((t) => t.replace('action: close, via: ws-api userDataStream.unsubscribe }', 'action: close, via: ws-api userDataStream.unsubscribe.all }'))
    .some((m) => m.includes('goes via ws-api userDataStream.unsubscribe.all, which does not exist')));
});

test('a bridge feeding a stream must state where the event sits; a stream change without a bridge is still refused', () => {
  assert.ok(problems((t) => t.replace("upstream: { subscriptionId: '<subscriptionId>', event: '<event>' }", "upstream: { subscriptionId: '<subscriptionId>', data: '<payload>' }"))
    .some((m) => m.includes('events.upstream must show where the event sits ("<event>")')));
  assert.ok(problems((t) => t.replace('      - bridge: { name: listenKeys, action: feed, via: ws-api userDataStream.subscribe.signature }', '      - move: stream <symbol>@trade'))
    .some((m) => m.includes('stream names are not migrated')));
});

test('event shapes: the path to <event>, and a template filled', () => {
  assert.equal(placeholderPath({ subscriptionId: '<subscriptionId>', event: '<event>' }, 'event'), ['event']);
  assert.equal(placeholderPath('<event>', 'event'), []);
  assert.is(placeholderPath({ a: 1 }, 'event'), undefined);
  assert.equal(fillTemplate({ e: 'listenKeyExpired', E: '<eventTime>', listenKey: '<listenKey>' }, { eventTime: 5, listenKey: 'K' }), { e: 'listenKeyExpired', E: 5, listenKey: 'K' });
  assert.equal(fillTemplate('<event>', { event: { e: 'balanceUpdate' } }), { e: 'balanceUpdate' });
});

test.run();
