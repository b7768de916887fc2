// A cache folder of a test's own that already holds what the default cache folder keeps by content
// alone: the YAML parses, the file-kind validators and the schema verdicts. A test that watches what
// is written to or read from a cache needs a folder of its own, but not the work an empty one costs
// at the first load of the shipped catalogue: ~35 cold YAML parses (~1 s of CPU), and compiling the
// file kinds' validators and every schema again (~0.45 s more, measured on `catalogue lint`). Each is
// kept by a hash of its input (src/catalogue/yaml-file.ts, file-validators.ts, schema-check.ts), so
// only what a test changes is made again; what is made is written atomically (a new file renamed in),
// never into the linked file. No model is linked: a load here builds and keeps its own.
// `npm install` fills the default folder (its lint).
import { copyFileSync, linkSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { defaultCacheDir } from '../../src/catalogue/model-cache.js';
import { tempDir } from './temp.js';

/** Kept by content in the cache folder's top level: the file-kind validators and the schema verdicts. */
const KEPT_CHECKS = /^(file-validators-[0-9a-f]{16}\.cjs|schema-checks-[0-9a-f]{16}\.json)$/;

/** Link (or copy) `names` of folder `from` into `to`; a file pruned meanwhile by another process is skipped. */
function linkAll(from: string, to: string, names: string[]): void {
  for (const name of names) {
    const [src, dest] = [join(from, name), join(to, name)];
    try {
      linkSync(src, dest);
    } catch {
      try { copyFileSync(src, dest); } catch { /* pruned meanwhile by another process */ }
    }
  }
}

/** A new temp folder (removed at exit) with the default cache's kept YAML parses in `yaml/`, its validators and verdicts. */
export function cacheDirWithParses(prefix: string): string {
  const dir = tempDir(prefix);
  const from = defaultCacheDir();
  let top: string[], parses: string[];
  try {
    top = readdirSync(from);
    parses = readdirSync(join(from, 'yaml'));
  } catch {
    return dir; // nothing kept yet: the test parses and compiles, as with an empty folder
  }
  linkAll(from, dir, top.filter((name) => KEPT_CHECKS.test(name)));
  mkdirSync(join(dir, 'yaml'));
  linkAll(join(from, 'yaml'), join(dir, 'yaml'), parses);
  return dir;
}
