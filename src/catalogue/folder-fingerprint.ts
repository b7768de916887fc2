// A catalogue folder's content hash without reading its files, when none changed since they were
// last read: the same file names and, for each, the same size, inode, device, modification and
// change time (nanoseconds). Writing a file's bytes sets its change time, which no tool sets back,
// and a file replaced by a rename (an editor's save, a ConfigMap update) is a new inode. A start-up
// of an unchanged catalogue then lists and stats its ~40 files instead of reading and hashing
// ~630 KB (~2.5 ms of a start-up to the first answer: bench/startup.ts).
// Kept per folder in the cache folder (fingerprints/), bounded like the models. A file changed less
// than two seconds before its read began is not vouched for (a file system's clock is coarse, down to
// 2 s on some: a write in the same tick as the read would leave the same times), so a folder edited
// just now is read in full until its files are older than that.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { folderKey, markUsed, pruneLeastRecent } from './cache-folder.js';
import { listCatalogueFiles } from './catalogue-files.js';
import type { Problem } from './problems.js';
import { writeAtomically } from './write-atomically.js';

/** Fingerprints kept, one per catalogue folder. */
const MAX_FOLDERS = 32;
/** How long before a read began a file must have last changed for its fingerprint to be kept. */
export const SETTLED_MS = 2000;

interface Kept { fingerprint: string; hash: string }

const keptFile = (cacheDir: string, root: string) => join(cacheDir, 'fingerprints', `${folderKey(root)}.json`);

/**
 * The digest of the folder's file names and their stat data (with `version`, the loader's), or
 * undefined when a file cannot be stated, is not a regular file, or (with `settledBefore`) changed
 * within SETTLED_MS of that time.
 */
function fingerprintOf(root: string, names: readonly string[], version: string, settledBefore?: number): string | undefined {
  const h = createHash('sha256').update(version).update('\0');
  for (const name of names) {
    const s = statSync(join(root, name), { bigint: true, throwIfNoEntry: false });
    if (!s?.isFile()) return undefined;
    if (settledBefore !== undefined && Number(s.ctimeMs) > settledBefore - SETTLED_MS) return undefined;
    h.update(`${name}\0${s.size}\0${s.ino}\0${s.dev}\0${s.mtimeNs}\0${s.ctimeNs}\0`);
  }
  return h.digest('hex');
}

/** The content hash kept for `root`, if its files are the ones it was computed from; else undefined. */
export function keptHash(cacheDir: string, root: string, version: string): string | undefined {
  const file = keptFile(cacheDir, root);
  let kept: Kept;
  try {
    kept = JSON.parse(readFileSync(file, 'utf8')) as Kept;
  } catch {
    return undefined; // none kept, or unreadable: the folder is read
  }
  const problems: Problem[] = [];
  const names = listCatalogueFiles(root, problems);
  if (problems.length || fingerprintOf(root, names, version) !== kept.fingerprint) return undefined;
  markUsed(file);
  return kept.hash;
}

/** Keep `hash` for the files `names` of `root`, read from `readStartedMs` on; never throws (housekeeping). */
export function keepHash(cacheDir: string, root: string, names: readonly string[], hash: string, readStartedMs: number, version: string): void {
  try {
    const fingerprint = fingerprintOf(root, names, version, readStartedMs);
    if (!fingerprint) return;
    const file = keptFile(cacheDir, root);
    writeAtomically(file, JSON.stringify({ fingerprint, hash } satisfies Kept));
    pruneLeastRecent(join(cacheDir, 'fingerprints'), (n) => n.endsWith('.json'), MAX_FOLDERS);
  } catch { /* a read-only cache folder only costs the read */ }
}
