// Which catalogue paths a concrete request path is an instance of. Static paths are an exact map
// (the exchange's every route, and the hot path); templated ones a segment tree walked with one
// precedence, as fastify's find-my-way does: at each segment, left to right, a static segment
// before a single-segment parameter before a multi-segment one, and a multi-segment parameter takes
// as few segments as let the rest match. So `GET /gists/public` is never `GET /gists/{gist_id}`.
import { parseTemplate, type PathTemplate } from '../../catalogue/path-template.js';

/** One catalogue path a request path matched, with its parameter values (raw, not %-decoded) in template order. */
export interface PathMatch<T> {
  items: readonly T[];
  template: PathTemplate | null;
  values: readonly string[];
}

class Node<T> {
  readonly statics = new Map<string, Node<T>>();
  param: Node<T> | undefined;
  multi: Node<T> | undefined;
  /** Items whose path ends here, and the template they were written with (the first one's; a node's templates share one shape). */
  items: T[] = [];
  template: PathTemplate | null = null;
}

export class PathIndex<T> {
  private readonly exact = new Map<string, T[]>();
  private readonly root = new Node<T>();
  private templated = false;

  /** Add an item under a catalogue path; `multi(name)` says which parameters may hold '/'. */
  add(path: string, item: T, multi: (name: string) => boolean): void {
    const t = parseTemplate(path);
    if (typeof t === 'string' || t.params.length === 0) {
      const had = this.exact.get(path);
      if (had) had.push(item);
      else this.exact.set(path, [item]);
      return;
    }
    this.templated = true;
    let node = this.root;
    for (const s of t.segments) {
      if (s.param === null) {
        let next = node.statics.get(s.text);
        if (!next) node.statics.set(s.text, (next = new Node()));
        node = next;
      } else if (multi(s.param)) node = node.multi ??= new Node();
      else node = node.param ??= new Node();
    }
    node.items.push(item);
    node.template ??= t;
  }

  /**
   * Every catalogue path `path` is an instance of, best first. A static path comes first; the tree is
   * walked only when the catalogue has templates, so a catalogue of static paths pays one map lookup.
   */
  matches(path: string): PathMatch<T>[] {
    const out: PathMatch<T>[] = [];
    const exact = this.exact.get(path);
    if (exact) out.push({ items: exact, template: null, values: [] });
    if (this.templated && path.charCodeAt(0) === 47) walk(this.root, path.slice(1).split('/'), 0, [], out);
    return out;
  }

  /** The first match that holds an item `pick` accepts, and that item. */
  first(path: string, pick: (item: T) => boolean): { item: T; match: PathMatch<T> } | undefined {
    for (const match of this.matches(path)) for (const item of match.items) if (pick(item)) return { item, match };
    return undefined;
  }
}

function walk<T>(node: Node<T>, segs: string[], i: number, values: string[], out: PathMatch<T>[]): void {
  if (i === segs.length) {
    if (node.items.length) out.push({ items: node.items, template: node.template, values: [...values] });
    return;
  }
  const s = segs[i];
  const next = node.statics.get(s);
  if (next) walk(next, segs, i + 1, values, out);
  if (s === '') return; // a parameter is never empty: /repos//r names no repository
  if (node.param) {
    values.push(s);
    walk(node.param, segs, i + 1, values, out);
    values.pop();
  }
  if (node.multi) {
    for (let end = i + 1; end <= segs.length; end++) {
      if (segs[end - 1] === '') break;
      values.push(segs.slice(i, end).join('/'));
      walk(node.multi, segs, end, values, out);
      values.pop();
    }
  }
}
