// Cross-check against oasdiff on every consecutive exchange release pair (the fast test checks three).
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { allPairs, crossCheck } from '../diff/oasdiff-check.js';

test('every oasdiff change of every consecutive release pair is on an endpoint the diff tool reports', () => {
  const checked = crossCheck(allPairs());
  assert.ok(checked > 100, `only ${checked} oasdiff changes compared`);
});

test.run();
