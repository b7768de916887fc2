// The connection cap follows from the descriptor limit; /proc/self/limits is read as Linux writes it.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { connectionCap, descriptorLimit } from '../../src/gateway/overload/descriptors.js';

const test = suite('descriptor limit and connection cap');

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            1024                 4096                 files
Max locked memory         8388608              8388608              bytes
`;

test('reads this process\'s own limit, and the fields of a limits file', () => {
  const own = descriptorLimit();
  assert.ok(own && own.soft > 0 && own.hard >= own.soft, JSON.stringify(own));
  assert.equal(descriptorLimit(() => LIMITS), { soft: 1024, hard: 4096 });
  assert.equal(descriptorLimit(() => LIMITS.replace('4096', 'unlimited'))?.soft, 1024);
  assert.is(descriptorLimit(() => { throw new Error('ENOENT'); }), undefined);
  assert.is(descriptorLimit(() => 'nothing here'), undefined);
});

test('the default cap leaves room for the upstream pool, files and builder threads, and says so', () => {
  const c = connectionCap({ soft: 1024, hard: 1024 }, 256, 1, 0);
  assert.is(c.cap, 1024 - 256 - 8 - 64);
  assert.match(c.why, /descriptor limit 1024 \(hard 1024\) less 328 held back for 256 upstream sockets, 64 files and 8 × 1 builder threads = 696/);
  assert.is(c.tooHigh, undefined);
  assert.is(connectionCap({ soft: 256, hard: 256 }, 256, 1, 0).cap, 64, 'never below a quarter of the limit');
  const given = connectionCap({ soft: 1024, hard: 1024 }, 256, 1, 10_000);
  assert.is(given.cap, 10_000);
  assert.is(given.tooHigh, 696);
  assert.is(connectionCap(undefined, 256, 1, 0).cap, 10_000);
});

test.run();
