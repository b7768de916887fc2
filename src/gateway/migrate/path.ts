// The path a migrated request is sent to. A plan that keeps the operation's path keeps the bytes the
// client sent; a `move` to a templated path fills the target's template with the values of the
// path parameters of the same names, as the client wrote them (their raw text, %-escapes and all).
import { parseTemplate } from '../../catalogue/path-template.js';

/** `rawPath` (an instance of template `from`) carried to template `to`; `multi(name)` says which parameter may span segments. */
export function carryPath(from: string, rawPath: string, to: string, multi: (name: string) => boolean): string {
  if (from === to) return rawPath;
  const target = parseTemplate(to);
  if (typeof target === 'string' || !target.params.length) return to;
  const values = rawValues(from, rawPath, multi);
  return `/${target.segments.map((s) => (s.param === null ? s.text : values.get(s.param) ?? s.text)).join('/')}`;
}

/** The raw text of each path parameter of `rawPath`, an instance of template `from` (checked by the router). */
function rawValues(from: string, rawPath: string, multi: (name: string) => boolean): Map<string, string> {
  const out = new Map<string, string>();
  const t = parseTemplate(from);
  if (typeof t === 'string') return out;
  const raw = rawPath.slice(1).split('/');
  const spare = raw.length - t.segments.length; // segments a multi-segment parameter takes beyond its own
  let i = 0;
  for (const s of t.segments) {
    const n = s.param !== null && multi(s.param) ? 1 + spare : 1;
    if (s.param !== null) out.set(s.param, raw.slice(i, i + n).join('/'));
    i += n;
  }
  return out;
}
