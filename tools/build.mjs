// `npm run build`: tsc (incremental) and the bundle step (tools/bundle.ts), skipped when nothing
// they read changed since the last successful build — like make, by modification time: every file
// and folder under src/, tools/, test/ and bench/ (a folder's time changes when a file in it is
// added, removed or renamed), tsconfig.json, package.json and the installed packages' lock. A no-op
// tsc still takes ~2 s here, which every `npm test` paid. `npm run build -- --force` always builds.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stampFile = join(root, 'dist', '.build-stamp');
const INPUTS = ['src', 'tools', 'test', 'bench', 'tsconfig.json', 'package.json', 'node_modules/.package-lock.json'];

/** The latest modification time (ms) of `path` and, for a folder, of everything in it; 0 if missing. */
function newest(path) {
  let st;
  try { st = statSync(path); } catch { return 0; }
  let t = st.mtimeMs;
  if (st.isDirectory()) for (const name of readdirSync(path)) t = Math.max(t, newest(join(path, name)));
  return t;
}

const stamp = (() => { try { return statSync(stampFile).mtimeMs; } catch { return -1; } })();
if (!process.argv.includes('--force') && stamp >= Math.max(...INPUTS.map((p) => newest(join(root, p))))) {
  console.log('build: dist/ is up to date');
  process.exit(0);
}
const run = (args) => {
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
const started = Date.now();
// A dist/ from before the bundler kept tsc's output beside each bundle has a bundle and no
// .unbundled.js copy: make tsc emit everything again (incremental tsc would not rewrite the file).
if (existsSync(join(root, 'dist/tools/diff-releases.js')) && !existsSync(join(root, 'dist/tools/diff-releases.unbundled.js'))) {
  rmSync(join(root, 'dist/.tsbuildinfo'), { force: true });
}
run([join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']);
run([join(root, 'dist/tools/bundle.js')]);
// Stamped with the time the build began: a file saved while it ran is newer, so the next build runs.
writeFileSync(stampFile, '');
utimesSync(stampFile, started / 1000, started / 1000);
