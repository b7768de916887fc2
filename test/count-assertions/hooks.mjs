// Module resolution hook (see register.mjs): `uvu` and `uvu/assert` resolve to the wrappers in this
// folder, except when imported by the wrappers themselves, which need the real ones.
const here = new URL('./', import.meta.url).href;
const wrappers = { uvu: new URL('./uvu.mjs', import.meta.url).href, 'uvu/assert': new URL('./assert.mjs', import.meta.url).href };

export async function resolve(specifier, context, next) {
  const wrapper = wrappers[specifier];
  if (wrapper && !context.parentURL?.startsWith(here)) return { url: wrapper, shortCircuit: true };
  return next(specifier, context);
}
