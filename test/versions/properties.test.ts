// The generated proof of version changes, bounded for npm test (a few runs per case; the soak,
// test/soak/version-changes.soak.ts, runs the same properties thoroughly).
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { bridgedCases, checkAnswers, checkRequests, checkWsFrames, wsBridgedCases } from './properties.js';

const test = suite('version changes: generated from the catalogue');
const cases = bridgedCases();

test('every bridged operation at every release where it is alive: valid requests stay valid at the upstream\'s release', () => {
  assert.ok(cases.length > 100, `${cases.length} cases`);
  const ops = new Set(cases.map((c) => c.route.endpoint.endpoint.key));
  assert.ok(ops.size >= 18, `${ops.size} operations`);
  let migrated = 0;
  for (const c of cases) migrated += checkRequests(c, 8);
  assert.ok(migrated > cases.length, `${migrated} requests migrated`);
});

test('answers in the newest shape come back in the old release\'s shape', () => {
  for (const c of cases) checkAnswers(c, 5);
});

test('every bridged websocket-API method at every release where it is alive: valid frames arrive valid and signed at the upstream\'s release', () => {
  const ws = wsBridgedCases();
  assert.ok(ws.some((c) => c.method.name === 'orderList.place'), ws.map((c) => `${c.method.name}@${c.release}`).join(', '));
  let migrated = 0;
  for (const c of ws) migrated += checkWsFrames(c, 8);
  assert.ok(migrated > ws.length, `${migrated} frames migrated`);
});

test.run();
