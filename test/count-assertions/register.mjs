// Preloaded by test/run.mjs (`node --import`): every test file's imports of `uvu` and `uvu/assert`
// are redirected to counting wrappers, so a test that returns without a single assertion fails
// instead of passing silently (a test that cannot fail proves nothing).
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
