// The process's compiled parameter checks (src/catalogue/validators.ts compileShared): a schema is
// compiled once per ajv and schema text, and past the bound the ajv forgets every schema it kept
// while the functions it already handed out keep checking.
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { compileShared, createParamAjv, processAjv } from '../../src/catalogue/validators.js';

test('one compiled function per schema text, whichever object carries it; one ajv per process', () => {
  const ajv = createParamAjv();
  const a = compileShared(ajv, { type: 'integer', minimum: 1 });
  const b = compileShared(ajv, { type: 'integer', minimum: 1 });
  assert.is(a, b);
  assert.is.not(compileShared(ajv, { type: 'integer', minimum: 2 }), a);
  assert.is(processAjv.param, processAjv.param);
  assert.is.not(processAjv.param, processAjv.body);
});

test('past the bound the texts and ajv\'s own schemas are forgotten; functions handed out still check', () => {
  const ajv = createParamAjv();
  const first = compileShared(ajv, { type: 'string', enum: ['A'] }, 3);
  compileShared(ajv, { type: 'string', enum: ['B'] }, 3);
  compileShared(ajv, { type: 'string', enum: ['C'] }, 3);
  const kept = (ajv as unknown as { _cache: Map<unknown, unknown> })._cache.size;
  assert.ok(kept >= 3, `ajv kept ${kept} schemas`);
  compileShared(ajv, { type: 'string', enum: ['D'] }, 3); // the fourth: everything before it is forgotten
  assert.is((ajv as unknown as { _cache: Map<unknown, unknown> })._cache.size, 1);
  const again = compileShared(ajv, { type: 'string', enum: ['A'] }, 3);
  assert.is.not(again, first, 'compiled anew');
  assert.equal([first('A'), first('B'), again('A'), again('B')], [true, false, true, false]);
});

test.run();
