// A builder plugin answers an endpoint locally: a named async function from a validated JSON body
// to a JSON result. The catalogue names the plugin of each endpoint (`builder: <name>`).

/** Thrown by a plugin for bad input: the gateway answers 400 with this message. */
export { BuilderInputError } from './errors.js';

export type BuilderPlugin = (body: unknown) => Promise<unknown>;

/** Plugins by name. Loading is lazy: heavy modules (WASM) load on the first request that needs them. */
export type PluginRegistry = ReadonlyMap<string, BuilderPlugin>;
