// --watch: reload when anything under the catalogue folder, the config file or the tokens file
// changes. Editors and deploy tools save by writing a temporary file and renaming it over the old
// one, which ends a watch on the file itself (it watched the old inode). So a file is watched through
// its folder, with events filtered by name, and every watch is re-armed if its folder goes away and
// comes back. Changes are gathered for 250 ms first (a save is several events).
import { statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Logger } from '../log.js';

export interface Watching {
  close(): void;
}

const SETTLE_MS = 250;
const REARM_MS = 1000;

export function watchForReload(paths: (string | undefined)[], reload: (trigger: string) => Promise<unknown>, logger: Logger): Watching {
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const changed = new Set<string>();
  const schedule = (what: string) => {
    changed.add(what);
    clearTimeout(timer);
    timer = setTimeout(() => {
      const names = [...changed].slice(0, 3).join(', ') + (changed.size > 3 ? ', …' : '');
      changed.clear();
      void reload(`--watch: ${names}`);
    }, SETTLE_MS);
    timer.unref();
  };
  const watchers = new Set<FSWatcher>();
  /** Watch `dir` (recursively for the catalogue); report events that `accept`; re-arm when the watch ends. */
  const arm = (dir: string, recursive: boolean, accept: (file: string) => boolean, label: (file: string) => string) => {
    if (closed) return;
    let w: FSWatcher;
    try {
      w = watch(dir, { recursive, persistent: false }, (_event, file) => {
        const name = file ? String(file) : '';
        if (accept(name)) schedule(label(name));
      });
    } catch (e) {
      logger.warn(`--watch ${dir}: ${(e as Error).message}; trying again every ${REARM_MS / 1000} s`);
      setTimeout(() => arm(dir, recursive, accept, label), REARM_MS).unref();
      return;
    }
    watchers.add(w);
    const rearm = (why: string) => {
      watchers.delete(w);
      w.close();
      if (closed) return;
      logger.warn(`--watch ${dir}: ${why}; watching again`);
      schedule(dir);
      setTimeout(() => arm(dir, recursive, accept, label), REARM_MS).unref();
    };
    w.on('error', (e) => rearm(e.message));
    // A watched folder that is renamed or removed sends 'rename' for itself and then nothing.
    w.on('change', (event, file) => { if (event === 'rename' && !file && !exists(dir)) rearm('folder gone'); });
  };
  for (const p of paths) {
    if (!p) continue;
    const full = resolve(p);
    if (isDirectory(full)) arm(full, true, () => true, (file) => (file ? join(full, file) : full));
    else arm(dirname(full), false, (file) => file === basename(full), () => full);
  }
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      for (const w of watchers) w.close();
      watchers.clear();
    },
  };
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function exists(p: string): boolean {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
}
