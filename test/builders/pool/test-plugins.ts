// A plugin registry for the pool tests: the built-in builders plus `spin`, a build that never
// ends (a plain JS busy loop, as stuck as a WASM one), to exercise the deadline and the queue, and
// `hold`, which blocks its thread without using CPU (Atomics.wait; terminating the thread ends it),
// to fill the pool cheaply, `pause`, which blocks for a while, and `whoami`, which answers the id of the thread that ran it (no WASM to load), to see replacements.
import { threadId } from 'node:worker_threads';
import type { BuilderPlugin } from '../../../src/builders/plugin.js';
import { builtinPlugins } from '../../../src/builders/registry.js';

const spin: BuilderPlugin = async () => {
  for (;;) {
    /* never returns: only terminating the thread stops it */
  }
};

const hold: BuilderPlugin = async () => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  return null;
};

/** Blocks its thread for body.ms without using CPU, then answers its thread id. */
const pause: BuilderPlugin = async (body) => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, (body as { ms: number }).ms);
  return { threadId };
};

const whoami: BuilderPlugin = async () => ({ threadId });

export default new Map<string, BuilderPlugin>([...builtinPlugins, ['spin', spin], ['hold', hold], ['pause', pause], ['whoami', whoami]]);
