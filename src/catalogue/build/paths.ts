// An endpoint's path: a request path every client sends as written, a template the router reads
// (path-template.ts), and one `in: path` parameter per {name}. Across endpoints: templates a path
// could match both ways are a lint warning naming the rule that decides.
import type { Endpoint, Parameter } from '../model.js';
import { ambiguity, ROUTER_RULE, type Routed } from '../path-overlap.js';
import { parseTemplate, type PathTemplate } from '../path-template.js';
import { overlaps } from './lifecycle.js';
import type { Path, RawFile, ServiceBuild } from './context.js';

/** RFC 3986 path characters, without percent-escapes, plus the braces of {name}. */
const PATH_CHAR = /[A-Za-z0-9\-._~!$&'()*+,;=:@/{}]/;

/** Why a path is not one the gateway can serve as written, or null. */
export function pathProblem(path: string): string | null {
  const quoted = JSON.stringify(path);
  for (const ch of path) {
    if (PATH_CHAR.test(ch)) continue;
    const what = /[\u0000-\u0020\u007f]/.test(ch) ? 'a control character or space' : ch === '%' ? 'a percent-escape (write the character itself)' : 'a character clients escape';
    return `path ${quoted} holds ${JSON.stringify(ch)}, ${what}: a catalogue path has letters, digits, - . _ ~ ! $ & ' ( ) * + , ; = : @ and {name} segments`;
  }
  const segments = path.split('/').slice(1);
  if (segments.some((s) => s === '.' || s === '..')) return `path ${quoted} has a "." or ".." segment, which clients and proxies remove before sending: no request would reach it`;
  if (segments.slice(0, -1).includes('')) return `path ${quoted} has an empty segment (//)`;
  if (segments[0] === '_gateway') return `path ${quoted} is under /_gateway/, the gateway's own pages and admin routes`;
  if (segments[0].startsWith('@')) return `path ${quoted} starts with /@, the prefix that pins a request to a release (/@<release>/…)`;
  return null;
}

/** The path is safe and a template, and its {name}s and the `in: path` parameters agree one to one. */
export function checkPath(b: ServiceBuild, f: RawFile, at: Path, ep: Endpoint): void {
  const unsafe = pathProblem(ep.path);
  const t = unsafe ?? parseTemplate(ep.path);
  if (typeof t === 'string') {
    b.problem(f, [...at, 'path'], `${ep.method} ${JSON.stringify(ep.path)}: ${t}`);
    return;
  }
  const declared = new Set<string>();
  for (const p of ep.parameters) {
    if (p.in !== 'path') continue;
    declared.add(p.name);
    if (!t.params.includes(p.name)) b.problems.push({ ...p.at, message: `${ep.key}: parameter ${p.name} is in: path, but the path has no {${p.name}} segment` });
  }
  for (const name of t.params) {
    if (!declared.has(name)) b.problem(f, [...at, 'path'], `${ep.key}: {${name}} has no parameter with in: path (add { name: ${name}, in: path } to parameters)`);
  }
  const multi = t.segments.findIndex((s) => s.param !== null && multiSegment(ep, s.param));
  if (multi >= 0 && multi < t.segments.length - 1) {
    b.warnings.push({ file: f.file, line: f.lineOf([...at, 'path']), message: `${ep.key}: multi-segment parameter ${t.segments[multi].text} is followed by more segments; the router's rule: ${ROUTER_RULE}` });
  }
}

const multiSegment = (ep: Endpoint, name: string) => ep.parameters.some((p) => p.in === 'path' && p.name === name && p.multiSegment === true);

/**
 * A lint warning for every two templated endpoints of one method, alive at a common release, that
 * one path could match with neither the more specific at every segment; a problem where they tie.
 */
export function checkTemplateAmbiguity(b: ServiceBuild): void {
  const byMethod = new Map<string, { e: Endpoint; r: Routed }[]>();
  for (const e of b.svc.endpoints) {
    if (!e.path.includes('{')) continue; // a static path wins at every segment: never ambiguous
    const t = parseTemplate(e.path);
    if (typeof t === 'string') continue;
    const list = byMethod.get(e.method) ?? [];
    list.push({ e, r: routed(b, e, t) });
    byMethod.set(e.method, list);
  }
  for (const list of byMethod.values()) {
    for (let i = 0; i < list.length; i++) {
      for (let j = 0; j < i; j++) {
        const [x, y] = [list[j], list[i]];
        if (x.r.template.shape === y.r.template.shape || !overlaps(x.e.span, y.e.span)) continue;
        const found = ambiguity(x.r, y.r);
        if (!found) continue;
        const both = `${y.e.key}: a path such as ${found.example} matches both this and ${x.e.key} (${x.e.at.file}:${x.e.at.line})`;
        if (found.winner === null) {
          b.problems.push({ ...y.e.at, message: `${both}, alike at every segment: the router's rule cannot choose (${ROUTER_RULE}); make one of them more specific` });
        } else {
          b.warnings.push({ ...y.e.at, message: `${both}, and neither is the more specific at every segment; it goes to ${(found.winner === 0 ? x.e : y.e).key} by the router's rule: ${ROUTER_RULE}` });
        }
      }
    }
  }
}

const routed = (b: ServiceBuild, e: Endpoint, template: PathTemplate): Routed => ({
  template,
  multiSegment: (name) => multiSegment(e, name),
  accepts: (name, text) => {
    const p = e.parameters.find((x) => x.in === 'path' && x.name === name);
    return !p || accepts(p, text, p.enum ? b.svc.enums[p.enum]?.values.map((v) => v.value) : undefined);
  },
});

/**
 * Whether a path parameter's schema could take this text (type, enum, pattern; other keywords are
 * not read): only a text it takes makes two templates compete for a path.
 */
function accepts(p: Parameter, text: string, enumValues: string[] | undefined): boolean {
  const s = p.schema as { type?: unknown; enum?: unknown[]; pattern?: unknown };
  const types = [s.type ?? 'string'].flat();
  const typed = types.some((t) => (t === 'integer' ? /^-?\d+$/.test(text) : t === 'number' ? text.trim() !== '' && Number.isFinite(Number(text)) : t === 'boolean' ? text === 'true' || text === 'false' : t === 'string' || t === 'null'));
  const values = enumValues ?? (Array.isArray(s.enum) ? s.enum.map(String) : undefined);
  return typed && (!values || values.includes(text)) && (typeof s.pattern !== 'string' || safeTest(s.pattern, text));
}

const safeTest = (pattern: string, text: string) => {
  try {
    return new RegExp(pattern, 'u').test(text);
  } catch {
    return true; // the schema check reports the pattern itself
  }
};
