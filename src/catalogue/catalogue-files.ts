// The files of a catalogue folder, listed and read so that whatever the file system does — a link
// loop, a link out of the folder, a file that cannot be read or is gone by the time it is read, a
// FIFO or device under a catalogue name — is a `file:0: problem` of that file, never an exception
// with a stack (or a read that never returns).
//
// Symbolic links: a link to a file inside the catalogue folder is read as that file. A link to a
// folder inside it is followed when it leads where the walk does not otherwise go — a hidden
// folder, as a Kubernetes ConfigMap volume lays files out (`exchange -> ..data/exchange`) — and only
// once; a link to a folder the walk reads anyway would read files twice or loop, so it is refused.
// A link leading out of the folder is refused: a catalogue folder (or a revision extracted for
// `diff --base`) must not make the gateway read /etc.
import { closeSync, constants, fstatSync, openSync, readdirSync, readFileSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { CatalogueReadError, type Problem } from './problems.js';

/** The catalogue's files by path relative to the folder ("exchange/endpoints/market.yaml"), sorted. */
export interface CatalogueFiles {
  names: string[];
  bytes: Map<string, Buffer>;
}

const CATALOGUE_FILE = /\.(ya?ml|json)$/;

/** List and read every catalogue file under `root`; throws CatalogueReadError naming each one that could not be. */
export function readCatalogueFolder(root: string): CatalogueFiles {
  const problems: Problem[] = [];
  const names = listCatalogueFiles(root, problems);
  const bytes = readCatalogueFiles(root, names, problems);
  if (problems.length) throw new CatalogueReadError(problems);
  return { names, bytes };
}

/** The catalogue file names under `root` (dot-names left out), sorted by code point; problems for what cannot be listed. */
export function listCatalogueFiles(root: string, problems: Problem[]): string[] {
  const at = (rel: string) => ({ file: display(root, rel), line: 0 });
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
    if (!statSync(realRoot).isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
  } catch (e) {
    problems.push({ ...at(''), message: `cannot read the catalogue folder: ${fsReason(e)}` });
    return [];
  }
  const out: string[] = [];
  /** Folders entered through a link (by real path): each once, so no loop and no second copy. */
  const linked = new Set<string>();
  const walk = (rel: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(join(root, rel), { withFileTypes: true });
    } catch (e) {
      problems.push({ ...at(rel), message: `cannot read the folder: ${fsReason(e)}` });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const { name } = entry;
      if (name.startsWith('.')) continue;
      const r = rel ? `${rel}/${name}` : name;
      if (entry.isDirectory()) walk(r);
      else if (entry.isSymbolicLink()) {
        const target = linkTarget(root, realRoot, r);
        // A link to a file under another name (README, LICENSE) would not be read anyway.
        if (!target.folder && !CATALOGUE_FILE.test(name) && (!target.problem || target.outside)) continue;
        if (target.problem) problems.push({ ...at(r), message: target.problem });
        else if (!target.folder) out.push(r);
        else if (!target.hidden || linked.has(target.real!)) {
          problems.push({ ...at(r), message: `a link to a folder the catalogue reads already (${relative(realRoot, target.real!) || '.'}) is not followed: it would loop or read files twice` });
        } else {
          linked.add(target.real!);
          walk(r);
        }
      } else if (CATALOGUE_FILE.test(name)) out.push(r); // a FIFO or device is refused when read
    }
  };
  walk('');
  return out;
}

interface LinkTarget {
  real?: string;
  folder?: boolean;
  /** Inside the catalogue, under a folder whose name starts with "." (not walked but through a link). */
  hidden?: boolean;
  outside?: boolean;
  /** Why the link is not followed. */
  problem?: string;
}

/** Where a link of the catalogue leads: a folder or file, inside the catalogue or out of it, or nowhere. */
function linkTarget(root: string, realRoot: string, rel: string): LinkTarget {
  let real: string;
  let folder: boolean;
  try {
    real = realpathSync(join(root, rel));
    folder = statSync(real).isDirectory();
  } catch (e) {
    return { problem: `cannot follow the link: ${fsReason(e)}` };
  }
  if (real === realRoot || real.startsWith(`${realRoot}${sep}`)) return { real, folder, hidden: relative(realRoot, real).split(sep).some((part) => part.startsWith('.')) };
  return { real, folder, outside: true, problem: `the link leads out of the catalogue folder (to ${real}); not followed` };
}

/** The bytes of each named file; problems for those that cannot be read (gone, unreadable, not a regular file). */
export function readCatalogueFiles(root: string, names: readonly string[], problems: Problem[]): Map<string, Buffer> {
  const bytes = new Map<string, Buffer>();
  for (const f of names) {
    let fd: number | undefined;
    try {
      // Non-blocking open and a check on what was opened: a FIFO under a catalogue name must not
      // hang the read, nor a device (/dev/zero) fill memory; a regular file reads as usual.
      fd = openSync(join(root, f), constants.O_RDONLY | constants.O_NONBLOCK);
      if (!fstatSync(fd).isFile()) {
        problems.push({ file: display(root, f), line: 0, message: 'not a regular file; a catalogue file must be one' });
        continue;
      }
      bytes.set(f, readFileSync(fd));
    } catch (e) {
      problems.push({ file: display(root, f), line: 0, message: `cannot read the file: ${fsReason(e)}` });
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
  return bytes;
}

/** As problems name every catalogue file: relative to the working folder. */
function display(root: string, rel: string): string {
  return relative(process.cwd(), join(root, rel)) || rel || '.';
}

const REASONS: Record<string, string> = {
  ELOOP: 'a loop of symbolic links', ENOENT: 'no such file or folder: gone, or a link to nothing', EACCES: 'permission denied',
  EPERM: 'operation not permitted', ENOTDIR: 'not a folder', EISDIR: 'a folder, not a file', EMFILE: 'too many open files',
  ENAMETOOLONG: 'the path is too long', ERR_FS_FILE_TOO_LARGE: 'the file is too large to read',
};

/** "ELOOP (a loop of symbolic links)": the code, and what it means; never a stack. */
function fsReason(e: unknown): string {
  const code = (e as NodeJS.ErrnoException)?.code;
  if (!code) return (e as Error)?.message ?? String(e);
  return REASONS[code] ? `${code} (${REASONS[code]})` : code;
}
