// Cross-check against oasdiff on three release pairs that change many endpoints, parameters and
// enums; every consecutive pair is checked by the soak (test/soak/oasdiff-all-pairs.soak.ts).
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { crossCheck, pairsEndingAt } from './oasdiff-check.js';

test('every oasdiff change of 3.5.1→3.6.0, 3.7.0→3.8.0 and 3.11.0→3.12.0 is on an endpoint the diff tool reports', () => {
  const checked = crossCheck(pairsEndingAt('3.6.0', '3.8.0', '3.12.0'));
  assert.ok(checked > 20, `only ${checked} oasdiff changes compared`);
});

test.run();
