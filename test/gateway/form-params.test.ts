// forEachParam reads query strings and form bodies on the hot path without URLSearchParams; it must
// give URLSearchParams' pairs exactly, or the gateway would validate something other than what the
// upstream reads.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { forEachParam } from '../../src/gateway/params/form-params.js';

const test = suite('form params');

const pairs = (text: string) => {
  const out: [string, string][] = [];
  forEachParam(text, (k, v) => out.push([k, v]), null);
  return out;
};
const reference = (text: string) => [...new URLSearchParams(text)];

const CASES = [
  '', '&', '&&', '=', '==', 'a', 'a=', '=b', 'a=b', 'a=b&c=d', 'a=b&&c=d&', '&a=1', 'a=1=2',
  'symbol=BTCUSDT&interval=1m&limit=10', 'a+b=c+d', 'a%20b=c%2Bd', 'q=%E2%82%AC', 'q=%e2%82%ac',
  'bad=%', 'bad=%2', 'bad=%zz', 'bad=%E2%82', 'bad=%FF%FE', 'mix=%41%zz%42', 'raw=€uro', 'raw=%E2%82%AC€',
  'a=1&a=2', '__proto__=x&constructor=y', 'symbols=%5B%22BTCUSDT%22%2C%22ETHUSDT%22%5D', 'sp=a+%2B+b',
  'lone=\uD800x', 'lone=%ED%A0%80', 'x=%00', 'k%3Dv=1', 'a=b%26c',
];

test('gives exactly the pairs URLSearchParams gives, on edge cases', () => {
  for (const text of CASES) assert.equal(pairs(text), reference(text), `for ${JSON.stringify(text)}`);
});

test('gives exactly the pairs URLSearchParams gives, on 5 000 random texts', () => {
  const alphabet = ['a', 'b', '=', '&', '+', '%', '2', '0', 'E', 'F', 'z', '€', '%E2', '%82', '%AC', '%25', '%2B', ' ', '\uD83D\uDE00'];
  let seed = 42;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);
  for (let i = 0; i < 5000; i++) {
    let text = '';
    for (let j = rnd(24); j > 0; j--) text += alphabet[rnd(alphabet.length)];
    assert.equal(pairs(text), reference(text), `for ${JSON.stringify(text)}`);
  }
});

test.run();
