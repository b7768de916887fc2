// Housekeeping of the cache folder's derived files: each kind is bounded by a count, the least
// recently used going first (a file's mtime is its last use: written, or marked on a read). Folders
// that come and go (copies, temporary ones, edits) would otherwise leave files behind for ever.
import { createHash } from 'node:crypto';
import { readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';

/** A catalogue folder's part of the names of its files here (its model, its fingerprint): 12 hex digits of its path's hash. */
export function folderKey(root: string): string {
  return createHash('sha256').update(root).digest('hex').slice(0, 12);
}

/** Mark a cached file as used now; a read-only cache folder is left as it is (only pruning order). */
export function markUsed(file: string): void {
  try {
    const now = new Date();
    utimesSync(file, now, now);
  } catch { /* read-only */ }
}

/**
 * Past `keep` files of `dir` that `wanted` picks, remove the least recently used down to `keepAfter`
 * (default `keep`; lower means pruning runs less often). `names`: the folder's listing, when the
 * caller has just read it. Safe while another process reads one: on
 * POSIX an open file outlives its name. Never throws: a folder that changed under us is pruned next time.
 */
export function pruneLeastRecent(dir: string, wanted: (name: string) => boolean, keep: number, keepAfter = keep, listing?: string[]): void {
  try {
    const names = (listing ?? readdirSync(dir)).filter(wanted);
    if (names.length <= keep) return;
    const aged = names.map((n) => ({ n, t: statSync(join(dir, n), { throwIfNoEntry: false })?.mtimeMs ?? 0 })).sort((a, b) => b.t - a.t);
    for (const { n } of aged.slice(keepAfter)) rmSync(join(dir, n), { force: true });
  } catch { /* housekeeping */ }
}
