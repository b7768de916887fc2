// What drift keeps of a name a client sent, with anything in a key position shown as <…>: drift's
// table and its warn lines are read by people who must not learn a listen key or an API key from them.
//
// - a REST path under a service's stream paths (streams.yaml `paths`: /ws/<listen key>, /stream/…)
//   keeps only that prefix: `GET /ws/<…>`;
// - a stream name keeps what follows its first `@` (the symbol or listen key before it is <…>);
// - in any name, a segment (between `/`, `.` or `@`) that looks like a key is <…>: 24 characters or
//   more of letters, digits and `-_+=`, holding a digit (a listen key is 60 letters and digits, an
//   API key 64; no path, method or stream name of the catalogues looks so).

const KEYLIKE = /^[A-Za-z0-9_\-+=]{24,}$/;
const HIDDEN = '<…>';

/** Whether one segment of a name looks like a key. */
function keyLike(segment: string): boolean {
  return KEYLIKE.test(segment) && /\d/.test(segment);
}

/** `name` with every key-like segment between the separators replaced by <…>. */
function hideKeyLike(name: string, separators: RegExp): string {
  return name.split(separators).map((part) => (keyLike(part) ? HIDDEN : part)).join('');
}

/** A REST path as drift keeps it: under one of `keyPaths` only that prefix, else key-like segments hidden. */
export function restShape(path: string, keyPaths: readonly string[]): string {
  for (const p of keyPaths) if (path === p || path.startsWith(`${p}/`)) return path === p ? p : `${p}/${HIDDEN}`;
  return hideKeyLike(path, /(\/)/);
}

/** A stream name as drift keeps it: the part before the first '@' hidden, key-like parts after it too. */
export function streamShape(name: string): string {
  const at = name.indexOf('@');
  return at < 0 ? HIDDEN : `${HIDDEN}${hideKeyLike(name.slice(at), /([@/])/)}`;
}

/** A websocket-API method name as drift keeps it: key-like parts hidden. */
export function methodShape(name: string): string {
  return hideKeyLike(name, /([./@])/);
}
