// A plugin registry for the pool tests: the built-in builders plus `spin`, a build that never
// ends (a plain JS busy loop, as stuck as a WASM one), to exercise the deadline and the queue, and
// `whoami`, which answers the id of the thread that ran it (no WASM to load), to see replacements.
import { threadId } from 'node:worker_threads';
import type { BuilderPlugin } from '../../../src/builders/plugin.js';
import { builtinPlugins } from '../../../src/builders/registry.js';

const spin: BuilderPlugin = async () => {
  for (;;) {
    /* never returns: only terminating the thread stops it */
  }
};

const whoami: BuilderPlugin = async () => ({ threadId });

export default new Map<string, BuilderPlugin>([...builtinPlugins, ['spin', spin], ['whoami', whoami]]);
