// A full garbage collection for the few tests that measure a heap or want one collected before a
// timed window. The test files run without --expose-gc (test/run.mjs): V8 flags on the command line
// make node compile its lazily loaded internal modules without their code cache (~30-40 ms of CPU
// per process, measured with `times`), so only a file that asks for gc() pays for it, here: the flag
// is set at run time and gc taken from a fresh context, as src/catalogue/load-worker.ts does.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined = (globalThis as { gc?: () => void }).gc;

export function collectGarbage(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}
