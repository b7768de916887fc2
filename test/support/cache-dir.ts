// A cache folder of a test's own that already holds the YAML parses of the default cache folder.
// A test that watches what is written to or read from a cache needs a folder of its own, but not
// the ~35 cold YAML parses of the shipped catalogue that an empty one costs (~1 s of CPU each
// time; the parses are kept by the hash of each file's text, src/catalogue/yaml-file.ts, so only
// the files a test changes are parsed again). `npm install` fills the default folder (its lint).
import { copyFileSync, linkSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { defaultCacheDir } from '../../src/catalogue/model-cache.js';
import { tempDir } from './temp.js';

/** A new temp folder (removed at exit) with the default cache's kept YAML parses in `yaml/`. */
export function cacheDirWithParses(prefix: string): string {
  const dir = tempDir(prefix);
  const from = join(defaultCacheDir(), 'yaml');
  let names: string[];
  try {
    names = readdirSync(from);
  } catch {
    return dir; // nothing kept yet: the test parses, as with an empty folder
  }
  mkdirSync(join(dir, 'yaml'));
  for (const name of names) {
    const [src, dest] = [join(from, name), join(dir, 'yaml', name)];
    try {
      linkSync(src, dest);
    } catch {
      try { copyFileSync(src, dest); } catch { /* pruned meanwhile by another process */ }
    }
  }
  return dir;
}
