// Models this process has read from the cache folder, by cache file (its name holds the folder and
// the content hash) and the file's identity on disk: the gateways and tools of one process that load
// an unchanged catalogue share one parse (~10-40 ms of CPU for the exchange's) and, keyed by its
// objects, what is derived from it (resolved releases, compiled checks). Nothing mutates a loaded
// model. The two read last are held for a minute after their last read (tools and tests load the
// same catalogue back to back); after that a model is shared only while something still uses it,
// so one a reload replaced (reloads load on a worker thread) is not kept for the sake of this map.
import type { Catalogue } from './model.js';
import type { Problem } from './problems.js';

export interface ParsedModel {
  catalogue: Catalogue;
  warnings: Problem[];
}

interface Entry {
  identity: string;
  weak: WeakRef<Catalogue>;
  held?: Catalogue;
  warnings: Problem[];
}

const entries = new Map<string, Entry>();
const REMEMBERED = 8;
const HELD = 2;
const HOLD_MS = 60_000;
let holding: NodeJS.Timeout | undefined;

/** The model read from `file` when it had `identity`, if this process still has it. */
export function recall(file: string, identity: string): ParsedModel | undefined {
  const e = entries.get(file);
  const catalogue = e?.identity === identity ? e.weak.deref() : undefined;
  return catalogue && { catalogue, warnings: e!.warnings };
}

/** Remember the model just read from (or found for) `file` with `identity`. */
export function remember(file: string, identity: string, model: ParsedModel): void {
  entries.delete(file);
  entries.set(file, { identity, weak: new WeakRef(model.catalogue), held: model.catalogue, warnings: model.warnings });
  let newer = entries.size; // oldest first: how many entries from this one to the newest
  for (const [key, e] of entries) {
    if (newer > REMEMBERED) entries.delete(key);
    else if (newer > HELD) e.held = undefined;
    newer--;
  }
  if (holding) holding.refresh();
  else holding = setTimeout(releaseHeld, HOLD_MS).unref();
}

/** End the hold (its timer's work): models stay shared only while something else uses them. */
export function releaseHeld(): void {
  clearTimeout(holding);
  holding = undefined;
  for (const e of entries.values()) e.held = undefined;
}
