// --base <dir | git revision>: the catalogue a working catalogue is compared with. A folder is
// used as it is; anything else is a git revision of the repository holding the working catalogue,
// whose catalogue folder (same path inside the repository) is extracted with `git archive` into a
// temporary folder. The working tree and index are never touched.
import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { UsageError } from '../usage-error.js';

export interface BaseSource {
  /** Folder holding the base catalogue. */
  dir: string;
  /** What the user named: the folder or the revision. */
  label: string;
  /** Removes the temporary folder of a git revision; nothing for a folder. */
  dispose(): void;
}

// node:child_process (and the stream modules it pulls in) is loaded on use: only --base needs it,
// and loading it costs every cold `npm run diff` a few milliseconds.
const childProcess = () => createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');

function git(cwd: string, args: string[], input?: Buffer): { status: number | null; stdout: Buffer; stderr: string } {
  const r = childProcess().spawnSync('git', args, { cwd, input, maxBuffer: 512 * 1024 * 1024 });
  if (r.error) throw new UsageError(`--base: cannot run git: ${r.error.message}`);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString().trim() };
}

export function openBase(spec: string, workingDir: string): BaseSource {
  if (existsSync(spec) && statSync(spec).isDirectory()) return { dir: resolve(spec), label: spec, dispose: () => {} };
  const work = realpathSync(resolve(workingDir));
  const top = git(work, ['rev-parse', '--show-toplevel']);
  if (top.status !== 0) {
    throw new UsageError(`--base "${spec}" is not a folder, and the catalogue ${work} is not in a git repository to read a revision from`);
  }
  const root = realpathSync(top.stdout.toString().trim());
  if (git(root, ['rev-parse', '--verify', '--quiet', `${spec}^{commit}`]).status !== 0) {
    throw new UsageError(`--base "${spec}" is neither a folder nor a git revision of ${root}`);
  }
  const prefix = relative(root, work).split(sep).join('/');
  const tree = prefix ? `${spec}:${prefix}` : spec;
  const archive = git(root, ['archive', '--format=tar', tree]);
  if (archive.status !== 0) throw new UsageError(`--base "${spec}": no catalogue folder ${prefix || '.'} at that revision (${archive.stderr})`);
  const dir = mkdtempSync(join(tmpdir(), 'catalogue-base-'));
  const dispose = () => rmSync(dir, { recursive: true, force: true });
  const tar = childProcess().spawnSync('tar', ['-x', '-C', dir], { input: archive.stdout, maxBuffer: 64 * 1024 * 1024 });
  if (tar.status !== 0) {
    dispose();
    throw new UsageError(`--base "${spec}": cannot extract the catalogue: ${tar.error?.message ?? tar.stderr.toString().trim()}`);
  }
  return { dir, label: spec, dispose };
}
