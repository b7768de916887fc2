// exact-json: JSON.parse's values (numbers a double gives back exactly as numbers), other numbers
// kept as their text and written back as it; keys given twice found; malformed text refused where
// JSON.parse refuses it.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { DuplicateKey, ExactNumber, plainJson, readJson, writeJson } from '../../src/upstream/exact-json.js';

const test = suite('exact-json');

test('values a double cannot hold keep their text; written back byte for byte', () => {
  for (const text of ['9007199254740993', '1e400', '123456789012345678901234567890', '1.10', '-0', '1E5', '0.0500', '1e21']) {
    const v = readJson(text);
    assert.instance(v, ExactNumber, text);
    assert.is(writeJson(v), text);
    assert.is(String(v), text);
  }
  const frame = '{"id":9007199254740993,"params":{"a":[1.10,{"b":1e400}],"p":"0.10000000","q":1,"n":null,"t":true}}';
  assert.is(writeJson(readJson(frame)), frame);
  // A string holding a NUL (what marks an exact number while writing) is written as JSON.stringify writes it.
  const nul = '{"s":"\\u00000","t":"\\u0000abc","n":1.10,"m":[2.50]}';
  assert.is(writeJson(readJson(nul)), nul);
});

test('otherwise the values of JSON.parse, and the same refusals', () => {
  const valid = ['{}', '[]', '""', '"a\\u0041\\n\\"\\\\"', ' { "a" : [ 1 , 2.5 , -3e-2 , "x" , null , false ] } ', '{"__proto__":{"x":1}}', '0', '-12.5e+3', '"é😀"'];
  for (const text of valid) assert.equal(plainJson(readJson(text)), JSON.parse(text), text);
  assert.ok(Object.hasOwn(readJson('{"__proto__":1}') as object, '__proto__'), '__proto__ is an own key, as JSON.parse makes it');
  const invalid = ['', '{', '{"a":}', '[1,]', '{"a":1,}', '01', '1.', '.5', '+1', '"\t"', '"\\x"', 'tru', 'nul', '{a:1}', "{'a':1}", '[1]x', 'NaN', '"unterminated'];
  for (const text of invalid) {
    assert.throws(() => JSON.parse(text), text);
    assert.throws(() => readJson(text), text);
  }
});

test('a key given twice is found, naming where; or the last kept, as JSON.parse', () => {
  for (const [text, key, path] of [['{"method":"a","method":"b"}', 'method', ''], ['{"params":{"x":1,"y":2,"x":1}}', 'x', 'params'], ['{"a":[{"k":1,"k":2}]}', 'k', 'a[0]']] as const) {
    try {
      readJson(text);
      assert.unreachable(text);
    } catch (e) {
      assert.instance(e, DuplicateKey);
      assert.equal([(e as DuplicateKey).key, (e as DuplicateKey).path], [key, path]);
    }
    assert.equal(readJson(text, { duplicates: 'last' }), JSON.parse(text));
  }
});

test('nesting is bounded (a hostile frame cannot exhaust the stack)', () => {
  assert.throws(() => readJson('['.repeat(100_000) + ']'.repeat(100_000)), /nesting deeper/);
  assert.equal(readJson('['.repeat(100) + ']'.repeat(100)), JSON.parse('['.repeat(100) + ']'.repeat(100)));
});

test('plainJson copies only what holds an ExactNumber', () => {
  const same = { a: 1, b: ['x'] };
  assert.is(plainJson(same), same);
  const v = readJson('{"a":1.10,"b":[9007199254740993],"c":{"d":1}}') as Record<string, unknown>;
  const p = plainJson(v) as Record<string, unknown>;
  assert.equal(p, { a: 1.1, b: [9007199254740992], c: { d: 1 } });
  assert.is(p.c, v.c);
});

test.run();
