// uvu/assert with every call counted (see register.mjs); behaviour otherwise unchanged.
import * as real from 'uvu/assert';
import { tick } from './counter.mjs';

const wrap = (f) => (...args) => { tick(); return f(...args); };

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
export const not = Object.assign(wrap(real.not), Object.fromEntries(Object.entries(real.not).map(([k, f]) => [k, wrap(f)])));
