// Bad input of any kind becomes a BuilderInputError naming the field and the cause, so the
// gateway answers 400 instead of leaking a raw WASM exception (CSL throws bare strings).
import { BuilderInputError } from '../plugin.js';

export function inputError(field: string, cause: string): BuilderInputError {
  return new BuilderInputError(`${field}: ${cause}`);
}

/** Readable text of whatever CSL / whisky-js threw (a string, an Error, a WASM trap). */
export function wasmMessage(e: unknown): string {
  let text = e instanceof Error ? e.message : String(e);
  // CSL wraps many messages as JsValue("...") with escaped quotes.
  const wrapped = /^JsValue\("([\s\S]*)"\)$/.exec(text);
  if (wrapped) text = wrapped[1]!.replace(/\\"/g, '"');
  if (e instanceof WebAssembly.RuntimeError) text = `WASM trap (${text})`;
  return text;
}

/** Run a CSL call that may reject the input; report a failure against `field`. */
export function attempt<T>(field: string, what: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof BuilderInputError) throw e;
    throw inputError(field, `${what}: ${wasmMessage(e)}`);
  }
}
