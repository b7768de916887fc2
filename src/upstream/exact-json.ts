// JSON read and written again without changing a value the gateway does not change. JSON.parse
// turns every number into a double: an id 9007199254740993 comes back as 9007199254740992, 1e400
// as Infinity (written as null), a 30-digit id as 1.2345678901234568e+29, a price 1.10 as 1.1.
// readJson keeps a number whose text a double does not give back exactly as an ExactNumber holding
// that text, which writeJson writes again as it came; every other value is what JSON.parse gives
// (strings keep their value; only how they are escaped may differ in a frame written again).
// readJson also finds a key given twice in one object, which JSON.parse silently reads as the last
// while another reader may take the first: a frame the gateway checks must mean one thing.
//
// Written here rather than taken from a package: lossless-json (the well-kept one) refuses a key
// given twice only when its two values differ, and hands every number back as an object, where the
// gateway's validators and transforms need plain numbers for all but the few that do not survive.
import { randomBytes } from 'node:crypto';
import { ExactNumber } from '../catalogue/json-value.js';

// The values (shared with the catalogue's version-change applier, which may not import this layer).
export { ExactNumber, isJsonObject, scalarText } from '../catalogue/json-value.js';

/** A key given twice in one object; `path` names where ("params.price", "" at the top). */
export class DuplicateKey extends SyntaxError {
  constructor(readonly key: string, readonly path: string) {
    super(`duplicate key '${key}'${path ? ` in ${path}` : ''}`);
    this.name = 'DuplicateKey';
  }
}

export interface ReadOptions {
  /** A key given twice in one object: 'refuse' throws DuplicateKey (default); 'last' keeps the last, as JSON.parse. */
  duplicates?: 'refuse' | 'last';
}

/** Nesting deeper than this is refused (a recursive reader must not exhaust the stack on hostile input). */
const MAX_DEPTH = 512;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/** JSON.parse, but numbers kept exactly and duplicate keys found; throws SyntaxError (DuplicateKey) like JSON.parse. */
export function readJson(text: string, opts: ReadOptions = {}): unknown {
  return new Reader(text, opts.duplicates !== 'last').read();
}

/** One reading: a recursive descent over `text`, `i` the position reached. */
class Reader {
  private i = 0;
  private readonly n: number;
  /** Where the reader is (keys and indexes), for the message of a key given twice. */
  private readonly at: (string | number)[] = [];

  constructor(private readonly text: string, private readonly refuse: boolean) {
    this.n = text.length;
  }

  read(): unknown {
    const v = this.value(0);
    this.space();
    if (this.i < this.n) this.fail('unexpected text after the JSON value');
    return v;
  }

  private fail(what: string): never {
    throw new SyntaxError(`${what} at position ${this.i}`);
  }

  private space(): void {
    const { text, n } = this;
    for (; this.i < n; this.i++) {
      const c = text.charCodeAt(this.i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
    }
  }

  private string(): string {
    const { text, n } = this;
    const start = this.i++; // the opening quote
    let escaped = false;
    for (; this.i < n; this.i++) {
      const c = text.charCodeAt(this.i);
      if (c === 0x22) break;
      if (c === 0x5c) { escaped = true; this.i++; }
      else if (c < 0x20) this.fail('control character in a string');
    }
    if (this.i >= n) this.fail('unterminated string');
    this.i++;
    return escaped ? (JSON.parse(text.slice(start, this.i)) as string) : text.slice(start + 1, this.i - 1);
  }

  private path(): string {
    return this.at.map((k, j) => (typeof k === 'number' ? `[${k}]` : j ? `.${k}` : k)).join('');
  }

  private value(depth: number): unknown {
    this.space();
    const { text } = this;
    const c = text.charCodeAt(this.i);
    if (c === 0x22) return this.string();
    if (c === 0x7b || c === 0x5b) {
      if (depth >= MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH}`);
      return c === 0x7b ? this.object(depth + 1) : this.array(depth + 1);
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      NUMBER.lastIndex = this.i;
      const m = NUMBER.exec(text);
      if (!m) return this.fail('malformed number');
      this.i += m[0].length;
      const v = Number(m[0]);
      return String(v) === m[0] ? v : new ExactNumber(m[0]);
    }
    for (const [word, v] of LITERALS) {
      if (text.startsWith(word, this.i)) {
        this.i += word.length;
        return v;
      }
    }
    return this.fail(this.i >= this.n ? 'unexpected end of JSON' : `unexpected '${text[this.i]}'`);
  }

  private object(depth: number): Record<string, unknown> {
    const { text } = this;
    const o: Record<string, unknown> = {};
    this.i++;
    this.space();
    if (text.charCodeAt(this.i) === 0x7d) { this.i++; return o; }
    for (;;) {
      this.space();
      if (text.charCodeAt(this.i) !== 0x22) this.fail('expected a key');
      const key = this.string();
      this.space();
      if (text.charCodeAt(this.i) !== 0x3a) this.fail("expected ':'");
      this.i++;
      this.at.push(key);
      const v = this.value(depth);
      this.at.pop();
      if (this.refuse && Object.hasOwn(o, key)) throw new DuplicateKey(key, this.path());
      if (key === '__proto__') Object.defineProperty(o, key, { value: v, writable: true, enumerable: true, configurable: true });
      else o[key] = v;
      this.space();
      const c = text.charCodeAt(this.i++);
      if (c === 0x7d) return o;
      if (c !== 0x2c) { this.i--; this.fail("expected ',' or '}'"); }
    }
  }

  private array(depth: number): unknown[] {
    const { text } = this;
    const a: unknown[] = [];
    this.i++;
    this.space();
    if (text.charCodeAt(this.i) === 0x5d) { this.i++; return a; }
    for (;;) {
      this.at.push(a.length);
      a.push(this.value(depth));
      this.at.pop();
      this.space();
      const c = text.charCodeAt(this.i++);
      if (c === 0x5d) return a;
      if (c !== 0x2c) { this.i--; this.fail("expected ',' or ']'"); }
    }
  }
}

const LITERALS: readonly [string, unknown][] = [['true', true], ['false', false], ['null', null]];

/**
 * JSON.stringify, but an ExactNumber written as its text. Each is first written as a string marked
 * with a NUL and a random nonce, then the marks are replaced: JSON.stringify escapes a NUL in any
 * string (`\u0000`), so no string of the value can be mistaken for a mark without the nonce, which
 * is drawn once per process and never shown.
 * (Native JSON.stringify with a replacer: ~3 times faster here than a writer in JavaScript.)
 */
const NONCE = randomBytes(8).toString('hex');

export function writeJson(value: unknown): string {
  const texts: string[] = [];
  const nonce = NONCE;
  const out = JSON.stringify(value, (_key, v: unknown) => {
    if (!(v instanceof ExactNumber)) return v;
    texts.push(v.text);
    return `\u0000${nonce}${texts.length - 1}`;
  }) as string | undefined;
  if (out === undefined) return 'null';
  return texts.length ? out.replace(new RegExp(`"\\\\u0000${nonce}(\\d+)"`, 'g'), (_m, n: string) => texts[Number(n)]) : out;
}

/** The value with every ExactNumber as the number JSON.parse would have made (for validators); copies only what holds one. */
export function plainJson(v: unknown): unknown {
  if (v instanceof ExactNumber) return Number(v.text);
  if (!v || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    v.forEach((x, k) => {
      const p = plainJson(x);
      if (p !== x) (out ??= [...v])[k] = p;
    });
    return out ?? v;
  }
  let out: Record<string, unknown> | undefined;
  for (const k of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[k];
    const p = plainJson(x);
    if (p !== x) (out ??= { ...(v as Record<string, unknown>) })[k] = p;
  }
  return out ?? v;
}
