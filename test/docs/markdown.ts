// The documentation as the docs tests read it: the shipped Markdown files, their fenced blocks (with
// the `<!-- not run: <reason> -->` mark on the line before a fence), their relative links and their
// headings' anchors (GitHub's rule: lower case, punctuation dropped, spaces to hyphens).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

export interface Block {
  /** The file, relative to the checkout. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  text: string;
  /** The reason of a `<!-- not run: … -->` mark ('' when the mark has none); undefined: no mark. */
  notRun?: string;
}

/** README.md and every page of docs/, relative to the checkout. */
export function docFiles(root: string): string[] {
  const docs = existsSync(join(root, 'docs')) ? readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`) : [];
  return ['README.md', ...docs];
}

const FENCE = /^(\s*)(`{3,})(\S*)\s*$/;
const NOT_RUN = /^<!--\s*not run:(.*?)-->\s*$/;

export function blocks(root: string, file: string): Block[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]);
    if (!open) continue;
    const [, indent, ticks, lang] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !(lines[j].startsWith(indent + ticks) && lines[j].trim() === ticks); j++) body.push(lines[j].slice(indent.length));
    const mark = i > 0 ? NOT_RUN.exec(lines[i - 1].trim()) : null;
    out.push({ file, line: i + 1, lang, text: body.join('\n'), notRun: mark ? mark[1].trim() : undefined });
    i = j;
  }
  return out;
}

/** The text of a Markdown file outside its fenced blocks and inline code. */
function prose(text: string): string[] {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of text.split('\n')) {
    const f = FENCE.exec(line);
    if (f && (fence === null || line.trim() === fence)) {
      fence = fence === null ? f[2] : null;
      out.push('');
      continue;
    }
    out.push(fence === null ? line.replace(/`[^`]*`/g, '``') : '');
  }
  return out;
}

/** GitHub's anchor of a heading. */
export function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

export function anchors(root: string, file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(readFileSync(join(root, file), 'utf8'))) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const base = slug(h[1].replace(/``/g, ''));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  // Explicit anchors: <a id="…"></a>
  for (const m of readFileSync(join(root, file), 'utf8').matchAll(/<a (?:id|name)="([^"]+)"/g)) out.add(m[1]);
  return out;
}

/** Every relative link of a file that leads nowhere: "file:line: target (why)". */
export function brokenLinks(root: string, file: string): string[] {
  const broken: string[] = [];
  prose(readFileSync(join(root, file), 'utf8')).forEach((line, i) => {
    for (const m of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const [path, anchor] = target.split('#');
      const dest = path ? relative(root, join(root, dirname(file), decodeURIComponent(path))) : file;
      if (path && !existsSync(join(root, dest))) {
        broken.push(`${file}:${i + 1}: ${target} (no file ${dest})`);
        continue;
      }
      if (anchor !== undefined && dest.endsWith('.md') && !anchors(root, dest).has(anchor)) {
        broken.push(`${file}:${i + 1}: ${target} (no heading #${anchor} in ${dest})`);
      }
    }
  });
  return broken;
}

/** Paths of the checkout named in a file's prose (`src/…`, `test/…`, …) that do not exist: "file:line: path". */
export function missingPaths(root: string, file: string): string[] {
  const missing: string[] = [];
  readFileSync(join(root, file), 'utf8').split('\n').forEach((line, i) => {
    for (const m of line.matchAll(/`((?:src|test|tools|bench|deploy|catalogue|data|docs)\/[\w./-]*)`/g)) {
      if (!existsSync(join(root, m[1]))) missing.push(`${file}:${i + 1}: ${m[1]}`);
    }
  });
  return missing;
}
