// Build step after tsc (`npm run build`): the command-line tools whose cold start counts (`npm run
// diff` in CI; the bench/diff budget) are rewritten in place as one ES module each, so node loads
// one file instead of resolving and compiling a few dozen (~20 ms of a cold run).
// The input is tsc's output, so the bundle runs exactly the compiled modules the tests import. Each
// module keeps its own import.meta.url (the URL of its compiled file under dist/): the catalogue
// loader hashes its own folder into the cache key and finds the catalogue next to dist/, and both
// must mean the same thing bundled or not. npm packages stay imports (loaded lazily where they are).
import { build, type Plugin } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Tools under dist/tools/ bundled in place. */
const TOOLS = ['diff-releases'];

const DIST = fileURLToPath(new URL('..', import.meta.url));
const BANNER = '// Bundled by tools/bundle.ts from the tsc output of tools/ and src/ (npm run build); do not edit.';

/** import.meta.url of each bundled module, as the URL of its own compiled file relative to the bundle. */
function ownMetaUrl(outfile: string): Plugin {
  return {
    name: 'own-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.js$/ }, async ({ path }) => {
        const text = await readFile(path, 'utf8');
        const rel = relative(dirname(outfile), path).split('\\').join('/');
        const url = `new URL(${JSON.stringify(rel)}, import.meta.url).href`;
        return { contents: text.replaceAll('import.meta.url', url), loader: 'js', resolveDir: dirname(path) };
      });
    },
  };
}

async function bundle(tool: string): Promise<void> {
  const file = join(DIST, 'tools', `${tool}.js`);
  // Already a bundle: tsc did not run since (it rewrites every file it emits), so it is current.
  if ((await readFile(file, 'utf8')).startsWith(BANNER)) return;
  await build({
    entryPoints: [file],
    outfile: file,
    allowOverwrite: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    banner: { js: BANNER },
    logLevel: 'warning',
    plugins: [ownMetaUrl(file)],
  });
}

for (const tool of TOOLS) await bundle(tool);
