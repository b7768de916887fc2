// uvu with each test checked to have made at least one assertion (see register.mjs).
import * as real from 'uvu';
import { counted } from './counter.mjs';

const checked = (name, handler) => async (ctx) => {
  const before = counted();
  await handler(ctx);
  if (counted() === before) throw new Error(`test "${name}" made no assertion: a test that cannot fail proves nothing`);
};

function wrapSuite(s) {
  const w = (name, handler) => s(name, checked(name, handler));
  w.only = (name, handler) => s.only(name, checked(name, handler));
  w.skip = s.skip;
  w.before = s.before;
  w.after = s.after;
  w.run = s.run;
  return w;
}

export const { exec } = real;
export const test = wrapSuite(real.test);
export const suite = (...args) => wrapSuite(real.suite(...args));
