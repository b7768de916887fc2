// The path index's one precedence: at each segment a static segment, then a single-segment
// parameter, then a multi-segment one, which takes as few segments as let the rest match.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { PathIndex } from '../../src/gateway/routes/match.js';
import { parseTemplate } from '../../src/catalogue/path-template.js';

const test = suite('path index');

function index(paths: string[], multi: string[] = []): PathIndex<string> {
  const ix = new PathIndex<string>();
  for (const p of paths) ix.add(p, p, (name) => multi.includes(name));
  return ix;
}

const best = (ix: PathIndex<string>, path: string) => ix.matches(path).map((m) => [m.items[0], ...m.values]);

test('static before parameter, parameter before multi-segment, all matches listed best first', () => {
  const ix = index(['/gists/public', '/gists/{gist_id}', '/gists/{rest}/x'], ['rest']);
  assert.equal(best(ix, '/gists/public'), [['/gists/public'], ['/gists/{gist_id}', 'public']]);
  assert.equal(best(ix, '/gists/42'), [['/gists/{gist_id}', '42']]);
  const ix2 = index(['/a/{x}/c', '/a/{rest}'], ['rest']);
  assert.equal(best(ix2, '/a/b/c'), [['/a/{x}/c', 'b'], ['/a/{rest}', 'b/c']]);
});

test('a multi-segment parameter takes the fewest segments that let the rest match', () => {
  const ix = index(['/repos/{o}/{r}/branches/{branch}', '/repos/{o}/{r}/branches/{branch}/protection'], ['branch']);
  assert.equal(best(ix, '/repos/o/r/branches/feat/x/protection')[0], ['/repos/{o}/{r}/branches/{branch}/protection', 'o', 'r', 'feat/x']);
  assert.equal(best(ix, '/repos/o/r/branches/feat/x/protection')[1], ['/repos/{o}/{r}/branches/{branch}', 'o', 'r', 'feat/x/protection']);
  assert.equal(best(ix, '/repos/o/r/branches/main'), [['/repos/{o}/{r}/branches/{branch}', 'o', 'r', 'main']]);
});

test('a parameter is never empty, and a path without a leading slash matches nothing templated', () => {
  const ix = index(['/repos/{o}/{r}', '/f/{p}'], ['p']);
  assert.equal(best(ix, '/repos//r'), []);
  assert.equal(best(ix, '/repos/o/'), []);
  assert.equal(best(ix, '/f/a//b'), []);
  assert.equal(best(ix, 'repos/o/r'), []);
});

test('first() picks the best match holding an accepted item', () => {
  const ix = new PathIndex<{ m: string; p: string }>();
  ix.add('/gists/public', { m: 'GET', p: '/gists/public' }, () => false);
  ix.add('/gists/{id}', { m: 'PATCH', p: '/gists/{id}' }, () => false);
  assert.is(ix.first('/gists/public', (i) => i.m === 'PATCH')?.item.p, '/gists/{id}');
  assert.is(ix.first('/gists/public', (i) => i.m === 'GET')?.item.p, '/gists/public');
  assert.is(ix.first('/gists/public', (i) => i.m === 'POST'), undefined);
});

test('templates parse to one shape whatever the names; a brace inside a segment is refused', () => {
  const a = parseTemplate('/repos/{owner}/{repo}/issues/{id}');
  const b = parseTemplate('/repos/{o}/{r}/issues/{issue_number}');
  assert.ok(typeof a !== 'string' && typeof b !== 'string');
  if (typeof a === 'string' || typeof b === 'string') return;
  assert.is(a.shape, '/repos/{}/{}/issues/{}');
  assert.is(a.shape, b.shape);
  assert.equal(a.params, ['owner', 'repo', 'id']);
  assert.match(parseTemplate('/a/x{id}') as string, /segment "x\{id\}" must be static or one whole \{name\}/);
  assert.match(parseTemplate('/a/{id}/{id}') as string, /\{id\} appears twice/);
});

test.run();
