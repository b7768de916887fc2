// The name/value pairs of a query string or form body (application/x-www-form-urlencoded), with
// exactly the results of node's URLSearchParams (what the gateway used before; WHATWG URL §5.1),
// read without building a URLSearchParams and its iterator: on the proxy's hot path those were a
// measurable share of the gateway's own work. Most names and values need no decoding and come
// back as slices of the text.
import { unescape } from 'node:querystring';

type Es2024String = string & { isWellFormed(): boolean; toWellFormed(): string };

/**
 * Call `each(name, value, context)` for every pair of `text`, in order. The context is passed
 * through so a caller on the hot path can give a module-level function, not a closure per request.
 */
export function forEachParam<C>(text: string, each: (name: string, value: string, context: C) => void, context: C): void {
  // As URLSearchParams: the text is made a USV string first (a lone surrogate becomes U+FFFD).
  const t = (text as Es2024String).isWellFormed() ? text : (text as Es2024String).toWellFormed();
  // Most query strings hold no escape and no '+': every name and value is then a plain slice, and
  // two native scans spare the per-character decode loop.
  const read = t.indexOf('%') < 0 && t.indexOf('+') < 0 ? slice : decode;
  let start = 0;
  const end = t.length;
  while (start <= end) {
    let amp = t.indexOf('&', start);
    if (amp < 0) amp = end;
    if (amp > start) {
      const eq = t.indexOf('=', start);
      if (eq >= 0 && eq < amp) each(read(t, start, eq), read(t, eq + 1, amp), context);
      else each(read(t, start, amp), '', context);
    }
    start = amp + 1;
  }
}

const slice = (text: string, from: number, to: number) => text.slice(from, to);

/**
 * text[from, to) with '+' as a space and %-escapes decoded. Node decodes only when it saw a valid
 * escape (a '%' and two hex digits; a '+' between them does not break the run, a quirk kept for
 * parity), and then with querystring.unescape.
 */
function decode(text: string, from: number, to: number): string {
  let plus = false;
  let escaped = false;
  let check = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 43 /* + */) plus = true;
    else if (!escaped) {
      if (c === 37 /* % */) check = 1;
      else if (check > 0) check = isHex(c) ? (++check === 3 ? ((escaped = true), 0) : check) : 0;
    }
  }
  let s = text.slice(from, to);
  if (plus) s = s.replace(/\+/g, ' ');
  return escaped ? unescape(s) : s;
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/** One pair of a query or form text as sent, with its name and value as the upstream reads them. */
export interface SpelledPair {
  /** The pair's text as sent ("%74oken=abc"). */
  raw: string;
  /** Its name as sent ("%74oken"). */
  rawName: string;
  name: string;
  value: string;
}

/**
 * The pairs of `text` whose name reads as `name` (lower case) however it is spelled: percent-encoded
 * (`%74oken`), in another case (`Token`, `TOKEN`). For the names the gateway owns (the client token,
 * the signature it adds): no spelling of one slips past a check written for the plain name.
 */
export function spellingsOf(text: string, name: string): SpelledPair[] {
  const out: SpelledPair[] = [];
  if (!text) return out;
  const lower = text.toLowerCase();
  // Cheap test first: the name, or an escape that might spell it.
  if (!lower.includes(name) && !lower.includes('%')) return out;
  for (const raw of text.split('&')) {
    if (!raw) continue;
    const eq = raw.indexOf('=');
    const rawName = eq < 0 ? raw : raw.slice(0, eq);
    forEachParam(raw, (n, value) => { if (n.toLowerCase() === name) out.push({ raw, rawName, name: n, value }); }, undefined);
  }
  return out;
}
