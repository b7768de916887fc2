// uvu with each test checked to have made at least one assertion through ./assert.ts: a test that
// returns without one fails, naming itself. Test files import this instead of uvu.
import * as real from 'uvu';
import { counted } from './count.js';
import './fetch-timeout.js'; // every fetch() of a test file is bounded

type Handler = real.Callback;

const checked = (name: string, handler: Handler): Handler => async (ctx) => {
  const before = counted();
  await handler(ctx);
  if (counted() === before) throw new Error(`test "${name}" made no assertion: a test that cannot fail proves nothing`);
};

function wrapSuite(s: real.Test): real.Test {
  const w = ((name: string, handler: Handler) => s(name, checked(name, handler))) as real.Test;
  w.only = (name: string, handler: Handler) => s.only(name, checked(name, handler));
  w.skip = s.skip;
  w.before = s.before;
  w.after = s.after;
  w.run = s.run;
  return w;
}

export const { exec } = real;
export const test = wrapSuite(real.test);
export const suite = <T = Record<string, any>>(title?: string, context?: T): real.Test<T> => // eslint-disable-line @typescript-eslint/no-explicit-any
  wrapSuite(real.suite(title, context) as unknown as real.Test) as unknown as real.Test<T>;
