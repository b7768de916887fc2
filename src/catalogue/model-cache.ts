// The checked catalogue's JSON cache: its key, where it lives, and reading a folder's model from it
// (./load-at-start.ts loads the rest only on a miss).
// The cache is keyed by the hash of every file the catalogue was built from and of the loader itself:
// YAML parsing is slow and start-up should not pay for it when nothing changed, but a new check must
// never be skipped because an older loader cached the catalogue.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { folderKey, markUsed, pruneLeastRecent } from './cache-folder.js';
import { readCatalogueFolder } from './catalogue-files.js';
import { keepHash, keptHash } from './folder-fingerprint.js';
import { writeAtomically } from './write-atomically.js';
import { recall, remember } from './parsed-models.js';
import type { Problem } from './problems.js';
import type { Catalogue } from './model.js';

/** Bump when the model's shape changes, so older caches are ignored. */
const MODEL_VERSION = '7';

/** Set by tools/bundle.ts in a bundle: loaderVersion() of the files it was bundled from. */
declare const __CATALOGUE_LOADER_VERSION__: string | undefined;

let loaderHash: string | undefined;
/**
 * Hash of the loader's own compiled files (this folder: checks, model, reasons table): any change to
 * the code that checks a catalogue changes the cache key, with no version to remember to bump.
 */
export function loaderVersion(): string {
  if (loaderHash) return loaderHash;
  if (typeof __CATALOGUE_LOADER_VERSION__ === 'string') return (loaderHash = __CATALOGUE_LOADER_VERSION__);
  const dir = dirname(fileURLToPath(import.meta.url));
  const hash = createHash('sha256').update(MODEL_VERSION);
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.js')).sort()) {
    hash.update(name).update('\0').update(readFileSync(join(dir, name))).update('\0');
  }
  // The builder of each file kind (build/) and the version changes' reader (changes/) build the model too.
  for (const folder of ['build', 'changes']) {
    for (const name of readdirSync(join(dir, folder)).filter((n) => n.endsWith('.js')).sort()) {
      hash.update(`${folder}/${name}`).update('\0').update(readFileSync(join(dir, folder, name))).update('\0');
    }
  }
  return (loaderHash = hash.digest('hex').slice(0, 16));
}

export const DEFAULT_CATALOGUE_DIR = fileURLToPath(new URL('../../../catalogue', import.meta.url));

export interface LoadOptions {
  /** Folder for the JSON cache; false disables it. Default: defaultCacheDir() (the gateway and tools pass --cache-dir / GATEWAY_CACHE_DIR). */
  cacheDir?: string | false;
  /**
   * false: keep no model of this catalogue (a one-off folder, e.g. a git revision extracted for
   * `diff --base`, would only leave a cache entry nobody reads again), while still using the
   * folder's kept YAML parses and validators, which are keyed by content alone.
   */
  modelCache?: boolean;
}

/**
 * node_modules/.cache/catalogue-gateway, the folder babel, eslint and other tools keep their caches
 * in: the checkout's node_modules, or the one this package is installed in. A cache is derived data
 * of the install, so it lives and goes with it; an unwritable folder only costs start-up time.
 */
export function defaultCacheDir(): string {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const installed = root.lastIndexOf(`${sep}node_modules${sep}`);
  const modules = installed >= 0 ? root.slice(0, installed + `${sep}node_modules`.length) : join(root, 'node_modules');
  return join(modules, '.cache', 'catalogue-gateway');
}

export interface LoadResult {
  catalogue: Catalogue;
  warnings: Problem[];
  fromCache: boolean;
  /** Hash of the catalogue's files (names inside the folder, bytes) and the loader's version (16 hex digits): what a running gateway serves. */
  hash: string;
}

/** A catalogue folder as read and hashed: its model from the cache, or what building it needs. */
export type Opened =
  | { cached: LoadResult }
  | { cached?: undefined; root: string; files: string[]; bytes: Map<string, Buffer>; hash: string; cacheFile: string | null; cacheDir: string | false };

/**
 * Read a catalogue folder and hash it; its model comes from the cache when one was kept for these
 * bytes. An unchanged folder is not read at all (./folder-fingerprint.ts).
 */
export function openCatalogue(dir: string, opts: LoadOptions = {}): Opened {
  const root = resolve(dir);
  const cacheDir = opts.cacheDir ?? defaultCacheDir();
  // Where this folder's model (and fingerprint) are kept, if anywhere.
  const modelDir = cacheDir !== false && opts.modelCache !== false ? cacheDir : undefined;
  const kept = modelDir === undefined ? undefined : keptHash(modelDir, root, loaderVersion());
  const cached = modelDir !== undefined && kept !== undefined ? readModel(modelDir, root, kept) : undefined;
  if (cached) return cached;
  const readStarted = Date.now();
  const { names: files, bytes } = readCatalogueFolder(root);
  // The content hash covers the files' names inside the folder and their bytes (for UTF-8 text, the
  // same bytes as the decoded text), not where the folder is: replicas of a fleet that mount the same
  // catalogue at different paths serve the same hash. The cache key adds the folder (messages name
  // files by their path). Decoding waits for a cache miss: it is most of the read time of a
  // catalogue with non-ASCII text.
  const content = createHash('sha256').update(loaderVersion());
  for (const f of files) content.update(f).update('\0').update(bytes.get(f)!).update('\0');
  const hash = content.digest('hex').slice(0, 16);
  if (modelDir === undefined) return { root, files, bytes, hash, cacheFile: null, cacheDir };
  if (hash !== kept) keepHash(modelDir, root, files, hash, readStarted, loaderVersion());
  return readModel(modelDir, root, hash) ?? { root, files, bytes, hash, cacheFile: cacheFileOf(modelDir, root, hash), cacheDir };
}

/** The cache file of the model of `root` with content `hash`. */
function cacheFileOf(cacheDir: string, root: string, hash: string): string {
  const digest = createHash('sha256').update(root).update('\0').update(hash).digest('hex');
  return join(cacheDir, cacheFileName(root, digest));
}

/** The model kept for `root` with content `hash`, or undefined (none yet, or unreadable: it is built). */
function readModel(cacheDir: string, root: string, hash: string): { cached: LoadResult } | undefined {
  const file = cacheFileOf(cacheDir, root, hash);
  try {
    // The same file as when this process read it: written since (a new file renamed in, as every
    // writer here does, or other bytes), it is read again. Not its times: other processes mark it used.
    const st = statSync(file);
    const identity = `${st.ino}:${st.size}`;
    // The file is ASCII (asciiJson): read as latin1, a plain copy of its bytes, not a UTF-8 decode.
    const { catalogue, warnings } = recall(file, identity) ?? JSON.parse(readFileSync(file, 'latin1')) as LoadResult;
    markUsed(file);
    remember(file, identity, { catalogue, warnings });
    return { cached: { catalogue, warnings, fromCache: true, hash } };
  } catch {
    return undefined;
  }
}

/**
 * JSON with every non-ASCII character escaped: the same value, but read back as a one-byte string,
 * which node decodes and JSON.parse reads faster (a few characters would make all of it two-byte).
 */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * catalogue-<folder>-<content>.json: the folder part lets pruning remove only the older caches of
 * the same catalogue folder, so two catalogues sharing a cache folder do not evict each other.
 */
function cacheFileName(root: string, contentHash: string): string {
  return `catalogue-${folderKey(root)}-${contentHash.slice(0, 32)}.json`;
}

/** Caches this one replaces: the same folder's older ones, and those named before the folder part existed. */
export function isStaleCache(name: string, current: string): boolean {
  if (name === current) return false;
  const folder = current.split('-')[1];
  return name.startsWith(`catalogue-${folder}-`) && name.endsWith('.json') || /^catalogue-[0-9a-f]{32}\.json$/.test(name);
}

export function writeCache(file: string, result: LoadResult): void {
  const dir = dirname(file);
  try {
    writeAtomically(file, asciiJson({ catalogue: result.catalogue, warnings: result.warnings }));
  } catch {
    return; // a read-only cache folder only costs start-up time
  }
  const current = file.slice(dir.length + 1);
  let names: string[];
  try {
    names = readdirSync(dir); // once, for both kinds of pruning below
    for (const name of names) {
      // Safe while another process reads one: on POSIX an open file outlives its name.
      if (isStaleCache(name, current)) rmSync(join(dir, name), { force: true });
    }
  } catch {
    return; // pruning is housekeeping: a cache folder that changed under us is pruned next time
  }
  // Folders that come and go (copies, temporary ones) each leave a cache: keep the most recently used.
  const kept = (name: string) => name.startsWith('catalogue-') && name.endsWith('.json') && !isStaleCache(name, current);
  pruneLeastRecent(dir, kept, MAX_CACHED_FOLDERS, MAX_CACHED_FOLDERS, names);
}

/** Catalogue caches kept, one per catalogue folder (~1 MB for the shipped one). */
const MAX_CACHED_FOLDERS = 32;
