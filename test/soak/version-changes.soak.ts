// A soak (npm run test:soak): the version-change properties of test/versions/properties.ts, thoroughly
// (hundreds of generated requests and answers per bridged operation and release).
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { bridgedCases, checkAnswers, checkRequests, checkWsFrames, wsBridgedCases } from '../versions/properties.js';

const test = suite('version changes, thoroughly');
const cases = bridgedCases();

test('requests: valid at their release, valid at the upstream\'s after migration', () => {
  let migrated = 0;
  for (const c of cases) migrated += checkRequests(c, 300);
  assert.ok(migrated > cases.length * 100, `${migrated} requests migrated`);
});

test('answers: migrated down to the old shape', () => {
  for (const c of cases) checkAnswers(c, 200);
});

test('websocket-API frames: valid at their release, valid and signed at the upstream\'s after migration', () => {
  const ws = wsBridgedCases();
  let migrated = 0;
  for (const c of ws) migrated += checkWsFrames(c, 300);
  assert.ok(migrated > ws.length * 100, `${migrated} frames migrated`);
});

test.run();
