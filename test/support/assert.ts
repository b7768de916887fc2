// uvu/assert with every call counted; behaviour otherwise unchanged. Test files import this, not
// uvu/assert (test/run.mjs refuses a test file that imports uvu itself), so that ./uvu.ts can fail a
// test that returns without a single assertion: a test that cannot fail proves nothing.
import * as real from 'uvu/assert';
import { tick } from './count.js';

// Counted copy of an assertion, with its own sub-assertions (`is.not`, `not.ok`, …) counted too.
// uvu's assertions refer to each other (`is.not` is `not`), so one wrapper per original function.
const wrappers = new Map<unknown, unknown>();
function wrap<F extends (...args: never[]) => unknown>(f: F): F {
  if (wrappers.has(f)) return wrappers.get(f) as F;
  const counted = ((...args: Parameters<F>) => {
    tick();
    return f(...args);
  }) as F;
  wrappers.set(f, counted);
  for (const [k, v] of Object.entries(f)) (counted as unknown as Record<string, unknown>)[k] = typeof v === 'function' ? wrap(v) : v;
  return counted;
}

export const { Assertion } = real;
// A function declaration: TypeScript narrows through an `asserts` signature only with one.
export function ok(actual: unknown, msg?: real.Message): asserts actual {
  tick();
  real.ok(actual, msg);
}
export const is: typeof real.is = wrap(real.is);
export const equal: typeof real.equal = wrap(real.equal);
export const type: typeof real.type = wrap(real.type);
export const instance: typeof real.instance = wrap(real.instance);
export const snapshot: typeof real.snapshot = wrap(real.snapshot);
export const fixture: typeof real.fixture = wrap(real.fixture);
export const match: typeof real.match = wrap(real.match);
export const throws: typeof real.throws = wrap(real.throws);
export const unreachable: typeof real.unreachable = wrap(real.unreachable);
export const not: typeof real.not = wrap(real.not);
