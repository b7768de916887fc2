// uvu/assert with every call counted (see register.mjs); behaviour otherwise unchanged.
import * as real from 'uvu/assert';
import { tick } from './counter.mjs';

// Counted copy of an assertion, with its own sub-assertions (`is.not`, `not.ok`, …) counted too.
// uvu's assertions refer to each other (`is.not` is `not`), so one wrapper per original function.
const wrappers = new Map();
function wrap(f) {
  if (wrappers.has(f)) return wrappers.get(f);
  const counted = (...args) => { tick(); return f(...args); };
  wrappers.set(f, counted);
  for (const [k, v] of Object.entries(f)) counted[k] = typeof v === 'function' ? wrap(v) : v;
  return counted;
}

export const { Assertion } = real;
export const ok = wrap(real.ok);
export const is = wrap(real.is);
export const equal = wrap(real.equal);
export const type = wrap(real.type);
export const instance = wrap(real.instance);
export const snapshot = wrap(real.snapshot);
export const fixture = wrap(real.fixture);
export const match = wrap(real.match);
export const throws = wrap(real.throws);
export const unreachable = wrap(real.unreachable);
export const not = wrap(real.not);
