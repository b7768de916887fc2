// Every builder goes through here: the last line of defence that keeps a WASM failure (CSL and
// wasm-bindgen throw bare strings; a Rust panic surfaces as a WebAssembly.RuntimeError) from
// escaping as a 500. Errors of our own JS (TypeError…) still propagate: they are bugs.
import { BuilderInputError, type BuilderPlugin } from '../plugin.js';
import { wasmMessage } from './errors.js';

export function defineBuilder(name: string, build: (body: unknown) => Promise<string>): BuilderPlugin {
  return async (body) => {
    try {
      return { txHex: await build(body) };
    } catch (e) {
      if (e instanceof BuilderInputError) throw e;
      if (typeof e === 'string' || e instanceof WebAssembly.RuntimeError) {
        throw new BuilderInputError(`transaction: ${name} could not be built from this request (CSL: ${wasmMessage(e)})`);
      }
      throw e;
    }
  };
}
