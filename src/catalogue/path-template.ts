// A catalogue path is a template: static segments and whole-segment parameters (`/repos/{owner}/{repo}`).
// One parser for the loader (checks), the router (matching), the diff (identity) and the exports, so
// every part reads a template the same way.

export type Segment = { readonly param: null; readonly text: string } | { readonly param: string; readonly text: string };

export interface PathTemplate {
  readonly path: string;
  readonly segments: readonly Segment[];
  /** Parameter names in path order. */
  readonly params: readonly string[];
  /** The template with its parameter names left out (`/repos/{}/{}`): two templates that differ only in names are one operation. */
  readonly shape: string;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const cache = new Map<string, PathTemplate | string>();

/** The template of `path`, or why it is not one (a brace inside a segment, an empty or repeated name). */
export function parseTemplate(path: string): PathTemplate | string {
  let hit = cache.get(path);
  if (hit === undefined) cache.set(path, (hit = parse(path)));
  return hit;
}

/** Whether `path` holds a parameter at all: static paths take the router's exact lookup. */
export function isTemplated(path: string): boolean {
  return path.includes('{');
}

/** The shape of a path (its template without names); a path that is not a template is its own shape. */
export function shapeOf(path: string): string {
  const t = parseTemplate(path);
  return typeof t === 'string' ? path : t.shape;
}

function parse(path: string): PathTemplate | string {
  if (path[0] !== '/') return `path "${path}" must start with "/"`;
  const segments: Segment[] = [];
  const params: string[] = [];
  for (const text of path.slice(1).split('/')) {
    const open = text.indexOf('{');
    const close = text.indexOf('}');
    if (open < 0 && close < 0) {
      segments.push({ param: null, text });
      continue;
    }
    if (open !== 0 || close !== text.length - 1 || text.indexOf('{', 1) >= 0) {
      return `path "${path}": segment "${text}" must be static or one whole {name}`;
    }
    const name = text.slice(1, -1);
    if (!NAME.test(name)) return `path "${path}": "{${name}}" is not a parameter name (a letter or _, then letters, digits, _, . or -)`;
    if (params.includes(name)) return `path "${path}": {${name}} appears twice`;
    params.push(name);
    segments.push({ param: name, text });
  }
  const shape = `/${segments.map((s) => (s.param === null ? s.text : '{}')).join('/')}`;
  return { path, segments, params, shape };
}
