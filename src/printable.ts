// Text a tool or a log prints that came from outside (a path, a method or stream name a client sent,
// a name in a description file): control characters escaped, so it stays on its own line and
// cannot move the cursor, clear the screen or forge a line of the report after it.
//
// Escaped: C0 controls (U+0000–U+001F), DEL, C1 controls (U+0080–U+009F, among them the one-byte
// CSI U+009B) and the line and paragraph separators U+2028/U+2029, as `\n`, `\r`, `\t`, `\xHH` or
// `\uHHHH`. Everything else, non-ASCII letters included, is printed as it is.

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escape(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with its control characters escaped (the same string when it has none). */
export function printable(text: string): string {
  return CONTROL.test(text) ? text.replace(CONTROLS, escape) : text;
}

/** Whether `text` holds a character printable() would escape. */
export function hasControl(text: string): boolean {
  return CONTROL.test(text);
}
