// Deadlines holds every in-progress request's deadline on one timer: each entry still in the list
// when its deadline passes must be expired once, in deadline order, and no finished entry ever.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { Deadlines, type Deadline } from '../../src/gateway/transport/deadlines.js';

const test = suite('deadlines');

interface Entry extends Deadline { name: string }
const entry = (name: string, inMs: number): Entry => ({ name, due: performance.now() + inMs });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * Wait until `done()`, at most 5 s: a loaded machine can hold this process past every due time at
 * once, and the timer Deadlines re-arms then fires a turn after a plain sleep due at the same time.
 */
const until = async (done: () => boolean) => { for (let i = 0; i < 500 && !done(); i++) await sleep(10); };

test('entries expire in deadline order, each once, not before their deadline', async () => {
  const expired: [string, number][] = [];
  const d = new Deadlines<Entry>((e) => expired.push([e.name, performance.now() - e.due]));
  // Added out of order, as a request that waited behind pipelined ones starts after later arrivals.
  // Due times from one instant: a busy machine pausing this process between two adds would otherwise
  // reorder the deadlines themselves (d made 10 ms after c is due after it).
  const t0 = performance.now();
  for (const [name, inMs] of [['b', 40], ['c', 60], ['a', 20], ['d', 50]] as const) d.add({ name, due: t0 + inMs });
  // Reference: a plain timer due with the last entry, late by whatever the machine's scheduling adds.
  let plainLate = 0;
  const plainDue = performance.now() + 60;
  setTimeout(() => { plainLate = performance.now() - plainDue; }, 60);
  await sleep(120);
  await until(() => expired.length === 4);
  assert.equal(expired.map(([n]) => n), ['a', 'b', 'd', 'c']);
  for (const [name, late] of expired) assert.ok(late >= 0 && late < plainLate + 50, `${name} expired ${late.toFixed(1)} ms after its deadline (a plain timer: ${plainLate.toFixed(1)} ms)`);
});

test('a finished entry never expires; the rest still do', async () => {
  const expired: string[] = [];
  const d = new Deadlines<Entry>((e) => expired.push(e.name));
  const first = entry('first', 20);
  const middle = entry('middle', 30);
  const last = entry('last', 40);
  for (const e of [first, middle, last]) d.add(e);
  d.remove(first); // the head, which the timer was armed for
  d.remove(middle);
  d.remove(middle); // twice: a no-op
  await sleep(80);
  await until(() => expired.length > 0);
  await sleep(20); // anything else would have expired by now
  assert.equal(expired, ['last']);
  assert.equal([first.queued, middle.queued, last.queued], [false, false, false]);
});

test('entries added after the list emptied still expire (the timer is re-armed)', async () => {
  const expired: string[] = [];
  const d = new Deadlines<Entry>((e) => expired.push(e.name));
  const gone = entry('gone', 10);
  d.add(gone);
  d.remove(gone);
  await sleep(30); // the armed timer fires on an empty list
  d.add(entry('later', 10));
  const laterStill = entry('later still', 5000); // due after the timer: no re-arm needed, found when it fires
  d.add(laterStill);
  await sleep(40);
  await until(() => expired.length > 0);
  assert.equal(expired, ['later']);
  d.remove(laterStill);
});

test('a late starter that would walk past many entries gets a timer of its own, and still expires on time', async () => {
  const expired: string[] = [];
  const d = new Deadlines<Entry>((e) => expired.push(e.name));
  const many = Array.from({ length: 200 }, (_, i) => entry(`later ${i}`, 5000 + i)); // removed before they are due
  for (const e of many) d.add(e);
  const late = entry('late', 20); // due before all 200: placing it in the list would walk every one
  d.add(late);
  assert.ok(late.timer !== undefined && !late.queued, 'the late starter is outside the list');
  const lateGone = entry('late, finished', 25);
  d.add(lateGone);
  d.remove(lateGone); // its own timer is cleared: it never expires
  await sleep(60);
  await until(() => expired.length > 0);
  assert.equal(expired, ['late']);
  for (const e of many) d.remove(e);
  assert.is(lateGone.timer, undefined);
});

test.run();
