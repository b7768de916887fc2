// Build step after tsc (`npm run build`): the command-line tools whose cold start counts (`npm run
// diff` in CI; the bench/diff budget) are rewritten in place as one ES module each, so node loads
// one file instead of resolving and compiling a few dozen (~20 ms of a cold run).
// The input is tsc's output, so the bundle runs exactly the compiled modules the tests import. Each
// module keeps its own import.meta.url (the URL of its compiled file under dist/): the catalogue
// loader hashes its own folder into the cache key and finds the catalogue next to dist/, and both
// must mean the same thing bundled or not. npm packages stay imports (loaded lazily where they are).
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { copyFile, readdir, readFile, rm } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Tools under dist/tools/ bundled in place. */
const TOOLS = ['diff-releases'];
/**
 * Entry points bundled in place with what they import later (`import()`) split into chunks beside
 * them, so an npm package a lazy module imports stays lazy: the gateway's CLI, whose start-up to the
 * first answer counts (bench/startup.ts: ~66 modules resolved and read one by one cost more than
 * the code they hold). The modules stay unbundled under dist/ for the tests that import them.
 */
const SPLIT = ['src/cli'];

const DIST = fileURLToPath(new URL('..', import.meta.url));
const BANNER = '// Bundled by tools/bundle.ts from the tsc output of tools/ and src/ (npm run build); do not edit.';

/** import.meta.url of each bundled module, as the URL of its own compiled file relative to the bundle. */
function ownMetaUrl(outfile: string): Plugin {
  return {
    name: 'own-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.js$/ }, async ({ path }) => {
        const text = await readFile(path, 'utf8');
        // The entry is read from its tsc output kept beside the bundle; its own URL is the bundle's.
        const own = path.endsWith('.unbundled.js') ? path.slice(0, -'.unbundled.js'.length) + '.js' : path;
        const rel = relative(dirname(outfile), own).split('\\').join('/');
        const url = `new URL(${JSON.stringify(rel)}, import.meta.url).href`;
        return { contents: text.replaceAll('import.meta.url', url), loader: 'js', resolveDir: dirname(path) };
      });
    },
  };
}

/**
 * The catalogue loader's version (the hash of its compiled files that keys the model cache), taken
 * from the very files the bundle is made of: a bundled start-up need not read and hash ~31 files
 * again (~2 ms before listening). The tsc modules the tests import still compute it at run time.
 */
const { loaderVersion } = await import(new URL('../src/catalogue/model-cache.js', import.meta.url).href) as typeof import('../src/catalogue/model-cache.js');

/** The options every bundle shares: ESM for node 20, npm packages left as imports, own import.meta.url. */
const common = (file: string): BuildOptions => ({
  allowOverwrite: true, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external',
  sourcemap: 'linked', banner: { js: BANNER }, logLevel: 'warning', plugins: [ownMetaUrl(file)],
  define: { __CATALOGUE_LOADER_VERSION__: JSON.stringify(loaderVersion()) },
});

async function bundle(tool: string): Promise<void> {
  const file = join(DIST, 'tools', `${tool}.js`);
  // tsc rewrites the tool's file only when its own source changed, while the bundle holds every
  // module it imports: so tsc's output is kept beside it and the bundle is made again on every build
  // (it went stale when only a module under src/ changed).
  const source = join(DIST, 'tools', `${tool}.unbundled.js`);
  if (!(await readFile(file, 'utf8')).startsWith(BANNER)) await copyFile(file, source);
  await build({
    entryPoints: [source],
    outfile: file,
    ...common(file),
  });
}

/**
 * tsc rewrites the entry only when its own source changed, but the bundle holds every module it
 * imports: so the entry as tsc wrote it is kept beside it (`<name>.unbundled.js`) and the bundle
 * is made again from that on every build.
 */
async function bundleSplit(entry: string): Promise<void> {
  const file = join(DIST, `${entry}.js`);
  const source = join(DIST, `${entry}.unbundled.js`);
  if (!(await readFile(file, 'utf8')).slice(0, 200).includes(BANNER)) await copyFile(file, source); // after a #! line
  const dir = dirname(file);
  const name = basename(entry);
  const { metafile } = await build({
    entryPoints: { [name]: source },
    outdir: dir,
    chunkNames: `${name}-chunk-[hash]`,
    splitting: true,
    ...common(file), // chunks are written beside the entry: the same relative URLs hold for them
    metafile: true,
  });
  // Chunks of earlier bundles, once the new ones are written (a process starting meanwhile finds its files).
  const made = new Set(Object.keys(metafile.outputs).map((f) => basename(f)));
  for (const f of await readdir(dir)) if (f.startsWith(`${name}-chunk-`) && !made.has(f)) await rm(join(dir, f));
}

for (const tool of TOOLS) await bundle(tool);
for (const entry of SPLIT) await bundleSplit(entry);
