// The router's precedence between two templates, as lint reads it: a path both match, and which one
// the rule gives it to, only where neither template is the more specific at every segment.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { ambiguity, type Routed } from '../../src/catalogue/path-overlap.js';
import { parseTemplate, type PathTemplate } from '../../src/catalogue/path-template.js';

const test = suite('path template overlaps');

/** A template; a name ending in + is a multi-segment parameter (written here only). */
function routed(path: string): Routed {
  const template = parseTemplate(path.replaceAll('+}', '}')) as PathTemplate;
  return { template, multiSegment: (name) => path.includes(`{${name}+}`) };
}
const between = (a: string, b: string) => ambiguity(routed(a), routed(b));

test('one template more specific at every segment: the reader and the rule agree, nothing to say', () => {
  assert.is(between('/gists/{id}', '/gists/public'), null);
  assert.is(between('/repos/{o}/{r}/issues/{n}', '/repos/{o}/{r}/issues/comments'), null);
  assert.is(between('/a/{x}', '/a/{y+}'), null, 'a single-segment parameter wins over a multi-segment one');
  assert.is(between('/a/{x}/c', '/b/{y}/c'), null, 'no path matches both');
  assert.is(between('/a/{x}', '/a/{x}/{y}'), null, 'different lengths, no multi-segment parameter');
});

test('precedence that changes sides along the path: an example path and the winner by the left-to-right rule', () => {
  assert.equal(between('/w/{a}/c', '/w/b/{d}'), { example: '/w/b/c', winner: 1 });
  assert.equal(between('/w/b/{d}', '/w/{a}/c'), { example: '/w/b/c', winner: 0 });
  assert.equal(between('/a/{x+}/c', '/a/b/{y+}'), { example: '/a/b/c', winner: 1 });
  assert.equal(between('/a/{x}/{y+}', '/a/{x+}/{y}'), { example: '/a/x/x', winner: 0 });
});

test('templates alike at every segment of some path: no winner', () => {
  assert.equal(between('/a/{x+}', '/a/{x+}/{y+}'), { example: '/a/x/x', winner: null });
});

test("a parameter whose schema cannot take the other template's static text does not compete for the path", () => {
  assert.equal(between('/pulls/{pull_number}/comments', '/pulls/comments/{comment_id}'), { example: '/pulls/comments/comments', winner: 1 });
  const integer: Routed = { ...routed('/pulls/{pull_number}/comments'), accepts: (_, text) => /^\d+$/.test(text) };
  assert.is(ambiguity(integer, routed('/pulls/comments/{comment_id}')), null, 'a pull number is never "comments"');
  assert.is(ambiguity(routed('/pulls/comments/{comment_id}'), integer), null, 'either way round');
});

test.run();
