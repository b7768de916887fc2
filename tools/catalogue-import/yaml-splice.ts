// Edits of a YAML file that leave every byte they do not touch as it was. The `yaml` Document API
// finds the nodes (with their offsets in the text) and writes the new content; the new text is put
// in at those offsets, so comments, order, quoting and the wrapping of folded scalars elsewhere in
// the file survive (re-serialising a whole document re-wraps `>-` scalars and long flow maps).
import { isMap, isScalar, isSeq, parseDocument, stringify, type Document, type Node, type Pair, type YAMLMap, type YAMLSeq } from 'yaml';

interface Splice {
  at: number;
  end: number;
  text: string;
}

const OPTIONS = { lineWidth: 0 } as const;

export class YamlText {
  readonly doc: Document.Parsed;
  private splices: Splice[] = [];

  constructor(
    readonly file: string,
    readonly text: string,
  ) {
    this.doc = parseDocument(text);
    if (this.doc.errors.length) throw new Error(`${file}: invalid YAML, not touched: ${this.doc.errors[0].message}`);
  }

  get changed(): boolean {
    return this.splices.length > 0;
  }

  /** Insert `key: value` pairs into a map, after the first of `after` it has (else at its end). */
  addPairs(map: YAMLMap, pairs: [string, unknown][], after: readonly string[] = [], options: Record<string, unknown> = OPTIONS): void {
    if (!pairs.length) return;
    const anchor = after.map((k) => pairOf(map, k)).find((p) => p !== undefined) ?? (map.items.at(-1) as Pair<Node, Node> | undefined);
    if (map.flow) {
      const text = pairs.map(([k, v]) => `, ${flowPair(k, v)}`).join('');
      if (anchor) this.insert(valueEnd(anchor), text.slice(anchor ? 0 : 2));
      else this.insert(map.range![0] + 1, ` ${text.slice(2)} `);
      return;
    }
    const col = this.column(map.range![0]);
    const lines = indent(stringify(Object.fromEntries(pairs), options), col);
    this.insert(this.lineAfter(anchor ? valueEnd(anchor) : map.range![1]), lines);
  }

  /** Replace the scalar value of `key` in a map. */
  replaceScalar(map: YAMLMap, key: string, value: string): void {
    const node = pairOf(map, key)?.value;
    if (!isScalar(node) || !node.range) throw new Error(`${this.file}: ${key} is not a scalar`);
    const block = node.type === 'BLOCK_FOLDED' || node.type === 'BLOCK_LITERAL';
    const written = map.flow || block ? JSON.stringify(value) : stringify(value, OPTIONS).trimEnd();
    this.splices.push({ at: node.range[0], end: node.range[1], text: block ? `${written}\n` : written });
  }

  /**
   * Replace the scalar value of `key` in a map with a list of `items`, each a flow map on a line of
   * its own (`security: SIGNED` → one entry per requirement, each with its releases).
   */
  replaceWithList(map: YAMLMap, key: string, items: Record<string, unknown>[]): void {
    const node = pairOf(map, key)?.value;
    if (!isScalar(node) || !node.range) throw new Error(`${this.file}: ${key} is not a scalar`);
    const text = map.flow ? `[${items.map(flowItem).join(', ')}]` : `\n${indent(items.map((i) => `- ${flowItem(i)}`).join('\n'), this.column(map.range![0]) + 2)}`;
    // A block list starts on the next line: the spaces after `key:` go too.
    let at = node.range[0];
    while (!map.flow && this.text[at - 1] === ' ') at--;
    this.splices.push({ at, end: node.range[1], text });
  }

  /**
   * Append items to a block sequence (`seq` of map `parent` under `key`; created at the map's end when
   * missing); `flow`: each item a flow map on a line of its own.
   */
  appendItems(parent: YAMLMap, key: string, items: unknown[], stringType?: 'QUOTE_SINGLE', style?: 'flow'): void {
    if (!items.length) return;
    const options = { ...OPTIONS, ...(stringType ? { defaultStringType: stringType, defaultKeyType: 'PLAIN' as const } : {}) };
    const listText = () => (style === 'flow' ? items.map((i) => `- ${flowItem(i)}\n`).join('') : stringify(items, options));
    const seq = parent.get(key, true) as Node | undefined;
    if (seq === undefined || seq === null || (isScalar(seq) && seq.value === null)) {
      if (seq !== undefined && seq !== null) throw new Error(`${this.file}: ${key} is empty; write "${key}: []" or a list`);
      this.addPairs(parent, [[key, items]], [], options);
      return;
    }
    if (!isSeq(seq)) throw new Error(`${this.file}: "${key}" is not a list, not touched`);
    const list = seq as YAMLSeq<Node>;
    if (list.flow) {
      if (list.items.length) throw new Error(`${this.file}: "${key}" is a flow list [..]; write it as a block list to import into it`);
      // `key: []`: the brackets give way to the block list.
      const col = this.column(parent.range![0]);
      this.splices.push({ at: list.range![0], end: list.range![1], text: `\n${indent(listText(), col + 2).trimEnd()}` });
      return;
    }
    const last = list.items.at(-1)!;
    const dash = this.text.lastIndexOf('-', last.range![0]);
    const col = this.column(dash);
    this.insert(this.lineAfter(last.range![1]), indent(listText(), col));
  }

  /** The text with every edit made. */
  result(): string {
    let out = this.text;
    for (const s of [...this.splices].sort((a, b) => b.at - a.at)) out = out.slice(0, s.at) + s.text + out.slice(s.end);
    const check = parseDocument(out);
    if (check.errors.length) throw new Error(`${this.file}: the edit would make invalid YAML (${check.errors[0].message}); nothing written`);
    return out;
  }

  private insert(at: number, text: string): void {
    this.splices.push({ at, end: at, text });
  }

  private column(offset: number): number {
    return offset - (this.text.lastIndexOf('\n', offset - 1) + 1);
  }

  /** The start of the line after the one where `offset` is (the end of the text, with a newline added, at the last line). */
  private lineAfter(offset: number): number {
    if (offset > 0 && this.text[offset - 1] === '\n') return offset;
    const nl = this.text.indexOf('\n', offset);
    if (nl >= 0) return nl + 1;
    this.insert(this.text.length, '\n');
    return this.text.length;
  }
}

export function pairOf(map: YAMLMap, key: string): Pair<Node, Node> | undefined {
  return (map.items as Pair<Node, Node>[]).find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === key);
}

/** Where the value of a pair ends (its trailing comment excluded). */
function valueEnd(pair: Pair<Node, Node>): number {
  const node = pair.value ?? pair.key;
  return node!.range![1];
}

/** An item of a list as one flow map: `{ scheme: SIGNED, removed: 2.0 }`. */
function flowItem(item: unknown): string {
  return stringify(item, { ...OPTIONS, collectionStyle: 'flow' }).trim();
}

function flowPair(key: string, value: unknown): string {
  const text = stringify({ [key]: value }, { ...OPTIONS, collectionStyle: 'flow' }).trim();
  return text.slice(1, -1).trim();
}

function indent(text: string, col: number): string {
  const pad = ' '.repeat(col);
  return text.split('\n').map((l) => (l ? pad + l : l)).join('\n');
}

export { isMap, isSeq };
