// The diff engine on the synthetic shop catalogue (test/diff/fixtures/shop): each expected change
// below is read off the fixture's YAML by hand, so any rule, attribution or direction mistake shows.
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { UsageError } from '../../src/args.js';
import { UnknownReleaseError } from '../../src/catalogue/resolve.js';
import { diffReleases, isIgnored, parseIgnore, POLICY_RULE_IDS, RULE_IDS, RULES, type Change } from '../../src/diff/index.js';
import { loadFixture, tuple } from './support.js';

const { catalogue, shop } = loadFixture();
const diff = (from: string, to: string, ignore?: string) =>
  diffReleases(catalogue, 'shop', from, to, ignore === undefined ? {} : { ignore: parseIgnore(ignore) }).changes;
const tuples = (cs: Change[]) => cs.map(tuple).sort();
/** Rules tested on their own small fixtures (rules.test.ts) rather than here. */
const SMALL_FIXTURE_RULES = new Set(RULES.filter((r) => ['schema', 'body', 'constraint', 'weight', 'answer'].includes(r.kind) || r.policy || r.type === 'renamed').map((r) => r.id));

/** 1.0 → 10.0, by hand from the fixture: id | endpoint, websocket method or enum | name | value | release. */
const UPGRADE = [
  'endpoint-removed | GET /v1/old |  |  | 2.0',
  'endpoint-added | GET /v2/items |  |  | 1.1',
  'endpoint-added | GET /v1/report |  |  | 2.0-rc1',
  'security-relaxed | GET /v1/stats |  |  | 2.0',
  'security-tightened | POST /v1/orders |  |  | 10.0',
  'security-tightened | account |  |  | 2.0',
  'parameter-added | GET /v1/items | cursor |  | 1.1',
  'parameter-removed | GET /v1/items | page |  | 2.0',
  'parameter-became-required | GET /v1/items | q |  | 2.0-rc1',
  'parameter-removed | GET /v1/items | legacy |  | 10.0',
  'parameter-became-optional | GET /v1/items | strict |  | 2.0',
  'required-parameter-added | GET /v1/items | token |  | 10.0',
  'parameter-added | GET /v1/items | X-Unit |  | 10.0',
  'parameter-added | GET /v1/klines | X-Unit |  | 10.0',
  'parameter-added | GET /v1/stats | X-Unit |  | 10.0',
  'parameter-added | POST /v1/orders | X-Unit |  | 10.0',
  'parameter-added | POST /v1/return | X-Unit |  | 10.0',
  'parameter-added | account | omitZero |  | 10.0',
  'enum-value-added | SortOrder |  | NEWEST | 1.1',
  'enum-value-removed | SortOrder |  | OLDEST | 2.0',
  'enum-value-deprecated | SortOrder |  | DESC | 10.0',
  'enum-value-added | Interval |  | 1s | 1.1',
  'enum-value-removed | GET /v1/items | format | csv | 2.0',
  'enum-value-added | GET /v1/items | format | xml | 2.0',
  'ws-method-deprecated |  | order.place |  | 2.0',
  'ws-method-added |  | order.place.v2 |  | 2.0',
  'ws-method-removed |  | gone |  | 2.0-rc1',
  'stream-removed |  | <symbol>@old |  | 2.0',
  'stream-added |  | <symbol>@ticker |  | 1.1',
];

test('upgrade over the whole range: every change, dated by the release where it happened', () => {
  assert.equal(tuples(diff('1.0', '10.0')), [...UPGRADE].sort());
});

test('signed parameters that come with a security change are reported by the security change only', () => {
  const orders = diff('2.0', '10.0').filter((c) => c.endpoint === 'POST /v1/orders');
  assert.equal(orders.map((c) => `${c.id} ${c.name ?? ''}`).sort(), ['parameter-added X-Unit', 'security-tightened ']);
  const sec = orders.find((c) => c.kind === 'security')!;
  assert.equal([sec.before, sec.after, sec.severity], ['NONE', 'SIGNED', 'breaking']);
});

const INVERSE: Record<string, string> = {};
for (const [a, b] of [['added', 'removed'], ['deprecated', 'undeprecated'], ['became-required', 'became-optional'], ['tightened', 'relaxed']]) {
  INVERSE[a] = b;
  INVERSE[b] = a;
}
/** Rule id without the required/optional split of additions (a removal does not have it). */
const PLAIN: Record<string, string> = { 'required-parameter-added': 'parameter-added', 'body-required-property-added': 'body-property-added' };
const plainId = (id: string) => PLAIN[id] ?? id;
const own = (c: Change) => !POLICY_RULE_IDS.has(c.id);
const plain = (c: Change) => tuple({ ...c, id: plainId(c.id) });
const invert = (c: Change) => tuple({ ...c, id: plainId(c.id).replace(/(undeprecated|deprecated|added|removed|became-required|became-optional|tightened|relaxed)$/, (m) => INVERSE[m]) });

test('downgrade: the mirror of the upgrade, each change dated by the release that made it', () => {
  const releases = shop.releases.map((r) => r.id);
  for (let i = 0; i < releases.length; i++) {
    for (let j = i + 1; j < releases.length; j++) {
      const up = diff(releases[i], releases[j]).filter(own);
      const down = diff(releases[j], releases[i]);
      assert.ok(up.length > 0);
      assert.equal(up.map(invert).sort(), down.map(plain).sort(), `${releases[i]} <-> ${releases[j]}`);
    }
  }
  const d = diff('10.0', '1.0');
  assert.ok(d.some((c) => tuple(c) === 'endpoint-removed | GET /v2/items |  |  | 1.1'), 'an item added in 1.1 is removed by the downgrade, dated 1.1');
  assert.ok(d.some((c) => tuple(c) === 'endpoint-added | GET /v1/old |  |  | 2.0'), 'an item removed in 2.0 comes back, dated 2.0');
  assert.ok(d.some((c) => tuple(c) === 'parameter-became-optional | GET /v1/items | q |  | 2.0-rc1'));
  assert.ok(d.some((c) => tuple(c) === 'parameter-removed | GET /v1/items | token |  | 10.0' && c.severity === 'breaking'));
});

test('an item removed and added back: absent from a range spanning both, dated by the last change otherwise', () => {
  assert.not.ok(diff('1.0', '10.0').some((c) => c.kind === 'endpoint' && c.endpoint === 'POST /v1/return'));
  assert.equal(tuples(diff('1.1', '10.0').filter((c) => c.kind === 'endpoint' && c.endpoint === 'POST /v1/return')), ['endpoint-added | POST /v1/return |  |  | 2.0']);
  assert.equal(tuples(diff('1.0', '2.0-rc1').filter((c) => c.kind === 'endpoint' && c.endpoint === 'POST /v1/return')), [
    'endpoint-removed | POST /v1/return |  |  | 1.1',
    'endpoint-removed-without-deprecation | POST /v1/return |  |  | 1.1',
  ]);
});

test('undeprecations appear in downgrades, as info', () => {
  const d = diff('1.1', '1.0');
  assert.equal(
    tuples(d.filter((c) => c.id.endsWith('-undeprecated'))),
    ['endpoint-undeprecated | GET /v1/old |  |  | 1.1', 'parameter-undeprecated | GET /v1/items | legacy |  | 1.1', 'stream-undeprecated |  | <symbol>@old |  | 1.1'],
  );
  assert.ok(d.filter((c) => c.id.endsWith('-undeprecated')).every((c) => c.severity === 'info'));
});

test('equal releases: no changes', () => {
  for (const r of shop.releases) assert.equal(diff(r.id, r.id), []);
});

// The schema-level, body, constraint, weight, policy and path-template rules have their own small fixtures (rules.test.ts);
// the answer rules are read from changes.yaml (test/catalogue/github-catalogue.test.ts).
test('the lifecycle rules fire somewhere in the shop fixture, and each rule id has one severity', () => {
  const seen = new Set<string>();
  const ids = shop.releases.map((r) => r.id);
  for (const a of ids) for (const b of ids) for (const c of diff(a, b)) {
    seen.add(c.id);
    assert.is(c.severity, RULES.find((r) => r.id === c.id)!.severity, c.id);
  }
  assert.equal([...seen].filter((id) => !SMALL_FIXTURE_RULES.has(id)).sort(), [...RULE_IDS].filter((id) => !SMALL_FIXTURE_RULES.has(id)).sort());
  assert.is(new Set(RULE_IDS).size, RULE_IDS.length, 'rule ids are unique');
});

test('severities: removals and stricter requirements break, deprecations warn, additions inform', () => {
  const by = new Map(diff('1.0', '10.0').map((c) => [tuple(c), c.severity]));
  assert.is(by.get('endpoint-removed | GET /v1/old |  |  | 2.0'), 'breaking');
  assert.is(by.get('required-parameter-added | GET /v1/items | token |  | 10.0'), 'breaking');
  assert.is(by.get('parameter-became-required | GET /v1/items | q |  | 2.0-rc1'), 'breaking');
  assert.is(by.get('enum-value-removed | SortOrder |  | OLDEST | 2.0'), 'breaking');
  assert.is(by.get('ws-method-deprecated |  | order.place |  | 2.0'), 'warning');
  assert.is(by.get('enum-value-deprecated | SortOrder |  | DESC | 10.0'), 'warning');
  assert.is(by.get('parameter-added | GET /v1/items | cursor |  | 1.1'), 'info');
  assert.is(by.get('security-relaxed | GET /v1/stats |  |  | 2.0'), 'info');
});

test('messages name the replacement, the parameter location and the enum', () => {
  const d = diff('1.0', '10.0');
  const msg = (t: string) => d.find((c) => tuple(c) === t)?.message;
  assert.is(msg('endpoint-removed | GET /v1/old |  |  | 2.0'), 'endpoint removed; use GET /v2/items');
  assert.is(msg('parameter-removed | GET /v1/items | page |  | 2.0'), 'query parameter page removed; use cursor');
  assert.is(msg('parameter-added | GET /v1/items | X-Unit |  | 10.0'), 'optional header X-Unit added');
  assert.is(msg('enum-value-removed | SortOrder |  | OLDEST | 2.0'), 'value OLDEST of enum SortOrder removed; use NEWEST');
  assert.is(msg('enum-value-added | GET /v1/items | format | xml | 2.0'), 'value xml of query parameter format added');
});

test('a named enum\'s value changes are reported once, naming every user alive at both releases', () => {
  const interval = diff('1.0', '10.0').filter((c) => c.enum === 'Interval');
  assert.is(interval.length, 1);
  assert.equal(interval[0].usedBy, [
    { endpoint: 'GET /v1/klines', name: 'interval' },
    { wsMethod: 'klines', name: 'interval' },
    { stream: '<symbol>@kline_<interval>', name: 'interval' },
  ]);
  assert.is(interval[0].endpoint, undefined);
  assert.equal(diff('1.0', '10.0').find((c) => c.enum === 'SortOrder')!.usedBy, [{ endpoint: 'GET /v1/items', name: 'sort' }]);
  // X-Unit (enum Unit) is new at 10.0: its values are part of the new parameter, not changes of their own
  assert.not.ok(diff('2.0', '10.0').some((c) => c.enum === 'Unit'));
});

test('deterministic order: kind, then endpoint (path, method), then name and value', () => {
  const d = diff('1.0', '10.0');
  const kinds = d.map((c) => c.kind);
  const order = ['endpoint', 'security', 'parameter', 'enum-value', 'ws-method', 'stream'];
  assert.equal(kinds, [...kinds].sort((a, b) => order.indexOf(a) - order.indexOf(b)));
  assert.equal(d.filter((c) => c.kind === 'endpoint').map((c) => c.endpoint), ['GET /v1/old', 'GET /v1/report', 'GET /v2/items']);
  assert.equal(d.filter((c) => c.kind === 'enum-value').map((c) => c.enum ?? c.endpoint), ['GET /v1/items', 'GET /v1/items', 'Interval', 'SortOrder', 'SortOrder', 'SortOrder']);
  assert.equal(JSON.stringify(diff('1.0', '10.0')), JSON.stringify(d));
});

test('ignore: rule ids, endpoints and rule-on-endpoint pairs, with comments', () => {
  const all = diff('1.0', '10.0');
  const some = diff('1.0', '10.0', '# leave these out\nparameter-added   # every optional parameter\nGET /v1/old\nenum-value-removed GET /v1/items\n\n');
  assert.ok(some.length > 0 && some.length < all.length);
  assert.not.ok(some.some((c) => c.id === 'parameter-added' || c.endpoint === 'GET /v1/old' || c.id === 'enum-value-removed'));
  assert.equal(some.length, all.filter((c) => c.id !== 'parameter-added' && c.endpoint !== 'GET /v1/old' && c.id !== 'enum-value-removed').length);
  const ig = parseIgnore('stream-removed');
  assert.ok(isIgnored(all.find((c) => c.id === 'stream-removed')!, ig));
  // an enum's values go once every endpoint using it is ignored, not while a websocket method or stream uses it
  assert.not.ok(diff('1.0', '10.0', 'GET /v1/items').some((c) => c.enum === 'SortOrder'));
  assert.ok(diff('1.0', '10.0', 'GET /v1/klines').some((c) => c.enum === 'Interval'));
  assert.not.ok(diff('1.0', '10.0', 'enum-value-removed GET /v1/items').some((c) => c.id === 'enum-value-removed' && c.enum === 'SortOrder'));
  assert.throws(() => parseIgnore('endpoint-gone'), (e: Error) => e instanceof UsageError && /ignore file:1: .*endpoint-removed/.test(e.message));
  assert.throws(() => parseIgnore('ok\nget /v1/x'), (e: Error) => e instanceof UsageError && /:1:/.test(e.message));
});

test('unknown releases throw with the valid list; a service without releases is refused', () => {
  assert.throws(() => diff('1.0', '9.9'), (e: Error) => e instanceof UnknownReleaseError && e.message.includes('1.0, 1.1, 2.0-rc1, 2.0, 10.0'));
  assert.throws(() => diff('1.x', '1.0'), (e: Error) => e instanceof UnknownReleaseError && e.message.includes('"1.x"'));
  const unversioned = { ...shop, id: 'flat', versioned: false };
  assert.throws(() => diffReleases({ ...catalogue, services: [unversioned] }, 'flat', '1.0', '1.0'), (e: Error) => e instanceof UsageError && /no releases/.test(e.message));
});

test.run();
