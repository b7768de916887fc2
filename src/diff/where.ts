// Positions of catalogue items as paths relative to the catalogue folder ("exchange/endpoints/
// margin.yaml"), whatever folder the process runs in. The loader records each item's file
// relative to the working folder of the process that built it, and a cached catalogue keeps the
// paths of the process that wrote the cache; so a path that does not resolve inside the folder is
// matched by its longest suffix that exists there.
import { existsSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Change } from './types.js';

export function catalogueRelative(file: string, dirs: readonly string[]): string {
  const abs = resolve(file);
  for (const dir of dirs) {
    const rel = relative(dir, abs);
    if (rel && !rel.startsWith('..') && !isAbsolute(rel)) return rel.split(sep).join('/');
  }
  const parts = file.split(/[\\/]/);
  for (let i = 0; i < parts.length; i++) {
    const tail = parts.slice(i).join('/');
    if (dirs.some((d) => existsSync(join(d, tail)))) return tail;
  }
  return file;
}

/** The changes with every `at.file` relative to the first of `dirs` that holds it. */
export function relativePositions(changes: readonly Change[], dirs: readonly string[]): Change[] {
  const memo = new Map<string, string>();
  const rel = (f: string) => {
    let r = memo.get(f);
    if (r === undefined) memo.set(f, (r = catalogueRelative(f, dirs)));
    return r;
  };
  return changes.map((c) => (c.at ? { ...c, at: { file: rel(c.at.file), line: c.at.line } } : c));
}
