// Build step after tsc (`npm run build`): the command-line tools whose cold start counts (`npm run
// diff` in CI; the bench/diff budget) are rewritten in place as one ES module each, so node loads
// one file instead of resolving and compiling a few dozen (~20 ms of a cold run); the gateway's CLI
// is written beside tsc's output as one CommonJS file, run through a V8 code cache (see CLI).
// The input is tsc's output, so the bundle runs exactly the compiled modules the tests import. Each
// module keeps its own import.meta.url (the URL of its compiled file under dist/): the catalogue
// loader hashes its own folder into the cache key and finds the catalogue next to dist/, and both
// must mean the same thing bundled or not. npm packages stay imports (loaded lazily where they are).
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { spawn } from 'node:child_process';
import { chmod, copyFile, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Tools under dist/tools/ bundled in place. */
const TOOLS = ['diff-releases'];
/**
 * The gateway's CLI, whose start-up to the first answer counts (bench/startup.ts), bundled into one
 * CommonJS file with what it imports later (`import()`): `dist/src/cli.main.cjs`, run by
 * `dist/src/cli.cjs` (tools/cli-loader.cjs) through the V8 code cache made here for it. ~66 modules
 * resolved and read one by one cost more than the code they hold; node 20 loads one CommonJS file
 * faster than the ten ES modules (the entry and the chunks esbuild splits out) it was before: 121.9
 * against 126.6 ms to the first 200, medians of 25 alternated starts (a bare node:http server:
 * 81.3 ms; one ES module of everything: 176.7 ms); what the code cache saves is in the loader's
 * comment. What is imported later is still evaluated only then (esbuild wraps each such module), and
 * npm packages stay require() or import() where the modules have them. The modules stay unbundled
 * under dist/ for the tests that import them (tsc's dist/src/cli.js among them).
 */
const CLI = 'src/cli';
const DIST = fileURLToPath(new URL('..', import.meta.url));
const BANNER = '// Bundled by tools/bundle.ts from the tsc output of tools/ and src/ (npm run build); do not edit.';

/**
 * import.meta.url of each bundled module, as the URL of its own compiled file relative to the
 * bundle's URL (`base`: an expression, import.meta.url in an ES module; a CommonJS file has none).
 */
function ownMetaUrl(outfile: string, base = 'import.meta.url'): Plugin {
  return {
    name: 'own-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.js$/ }, async ({ path }) => {
        const text = await readFile(path, 'utf8');
        // The entry is read from its tsc output kept beside the bundle; its own URL is the bundle's.
        const own = path.endsWith('.unbundled.js') ? path.slice(0, -'.unbundled.js'.length) + '.js' : path;
        const rel = relative(dirname(outfile), own).split('\\').join('/');
        const url = `new URL(${JSON.stringify(rel)}, ${base}).href`;
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
const { DEFAULT_CATALOGUE_DIR, loaderVersion } = await import(new URL('../src/catalogue/model-cache.js', import.meta.url).href) as typeof import('../src/catalogue/model-cache.js');

/** The options every bundle shares: node 20, npm packages left as imports, own import.meta.url. */
const common = (file: string): BuildOptions => ({
  allowOverwrite: true, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external',
  sourcemap: 'linked', banner: { js: BANNER }, logLevel: 'warning', plugins: [ownMetaUrl(file)],
  define: { __CATALOGUE_LOADER_VERSION__: JSON.stringify(loaderVersion()) },
});
/**
 * A CommonJS bundle has no import.meta: its own URL is set once at its top (a module may name its
 * own `require`), strict as the ES modules it is made of were ("use strict" must come first).
 */
const CJS_TOP = `${BANNER}\n'use strict';\nconst __bundleUrl = require('node:url').pathToFileURL(__filename).href;`;

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

/** dist/src/cli.main.cjs from tsc's cli.js, the loader as cli.cjs, then the code cache. */
async function bundleCli(): Promise<void> {
  const source = join(DIST, `${CLI}.js`);
  const file = join(DIST, `${CLI}.main.cjs`);
  const dir = dirname(file);
  const name = basename(CLI);
  // A dist/ from before kept tsc's entry as <name>.unbundled.js and the ES bundle in its place.
  const kept = join(dir, `${name}.unbundled.js`);
  if (await stat(kept).then(() => true, () => false)) {
    if ((await readFile(source, 'utf8')).slice(0, 200).includes(BANNER)) {
      await copyFile(kept, source);
      await rm(`${source}.map`, { force: true }); // the ES bundle's map; tsc writes the module's own when it next emits it
    }
    await rm(kept);
  }
  for (const f of await readdir(dir)) if (f.startsWith(`${name}-chunk-`) || (f.startsWith(`${name}.main.cjs.`) && f.endsWith('.v8cache'))) await rm(join(dir, f));
  await build({ entryPoints: [source], outfile: file, ...common(file), format: 'cjs', banner: { js: CJS_TOP }, plugins: [ownMetaUrl(file, '__bundleUrl')],
    // import() of an npm package becomes require() (each has a CommonJS entry): the loader runs the
    // bundle as a vm.Script, where import() would need an experimental option that prints a warning.
    supported: { 'dynamic-import': false } });
  await asciiOnly(file);
  const loader = join(DIST, `${CLI}.cjs`);
  await rm(`${loader}.map`, { force: true }); // the map of the bundle that was cli.cjs before the loader
  await copyFile(fileURLToPath(new URL('../../tools/cli-loader.cjs', import.meta.url)), loader);
  await chmod(loader, 0o755);
  const made = await makeCodeCache(loader);
  if (made !== true) console.warn(`bundle: no V8 code cache for ${relative(DIST, file)} (${made}); the gateway starts without it, ~10 ms slower`);
}

/**
 * The bundle as ASCII: esbuild escapes strings, identifiers and regular expressions but keeps the
 * comments tsc left (a few hold "→" or "µs"), and one such character makes node decode the whole
 * file as UTF-8 into a two-byte string (~2 ms against ~1 ms for 576 KB read as latin1, which the
 * loader does). Only comments are left to escape, so the code means the same.
 */
async function asciiOnly(file: string): Promise<void> {
  const text = await readFile(file, 'utf8');
  if (/[^\x00-\x7f]/.test(text)) await writeFile(file, text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

/**
 * What the gateway that makes the cache is given and asked, from the shipped catalogue (no service
 * or path is written here): every proxied service's upstream at a closed port, so nothing leaves
 * the machine, and besides the probe a GET of one proxied endpoint that needs no parameter and no
 * key (answered 502), so the request path is compiled into the cache too.
 */
async function cacheRun(): Promise<{ args: string[]; paths: string[] }> {
  const { loadCatalogueAtStart } = await import(new URL('../src/catalogue/load-at-start.js', import.meta.url).href) as typeof import('../src/catalogue/load-at-start.js');
  const { catalogue } = await loadCatalogueAtStart(DEFAULT_CATALOGUE_DIR);
  const proxied = catalogue.services.filter((s) => s.kind === 'proxy');
  const open = proxied.flatMap((s) => s.endpoints).find((e) => e.method === 'GET' && e.span.removed === null && !e.path.includes('{')
    && e.parameters.length === 0 && e.security.every((x) => x.scheme === 'NONE'));
  return { args: proxied.flatMap((s) => ['--upstream', `${s.id}=http://127.0.0.1:9`]), paths: ['/_gateway/health', ...(open ? [open.path] : [])] };
}

/**
 * Start the gateway once (the loader asked to keep its code), have it answer what cacheRun() says,
 * then signal it to write the cache of what it compiled and exit. Resolves true, or why not.
 */
async function makeCodeCache(cli: string): Promise<true | string> {
  const { args, paths } = await cacheRun();
  return new Promise((resolve) => {
    // The defaults, whatever GATEWAY_* settings the build's environment holds (with --workers the
    // process signalled would be a primary that serves nothing).
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GATEWAY_')));
    const child = spawn(process.execPath, [cli, '--port', '0', '--log-level', 'error', ...args], {
      env: { ...env, GATEWAY_CODE_CACHE_OUT: '1' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); resolve(`no answer within 60 s: ${out.slice(-300)}`); }, 60_000);
    child.stderr.on('data', (d: Buffer) => { out += d; });
    child.once('exit', (code, signal) => { clearTimeout(timer); resolve(code === 0 ? true : `exit ${code ?? signal}: ${out.slice(-300)}`); });
    child.stdout.on('data', async (d: Buffer) => {
      const url = /listening on (http:\S+)/.exec(String(d))?.[1];
      if (!url) return;
      try {
        for (const path of paths) await (await fetch(`${url}${path}`, { signal: AbortSignal.timeout(10_000) })).arrayBuffer();
      } catch (e) {
        out += String(e);
      }
      child.kill('SIGUSR2');
    });
  });
}

for (const tool of TOOLS) await bundle(tool);
await bundleCli();
