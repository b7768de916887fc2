// An endpoint's path parameters and JSON body fields apart from the rest of its parameters: the
// path's {name} segments in path order, and the fields of a JSON object body.
import type { Endpoint, Parameter } from './model.js';
import { parseTemplate } from './path-template.js';

export interface SplitParameters {
  /** in: path, in the order of the path's {name} segments. */
  readonly path: readonly Parameter[];
  /** in: body, as written (every release's). */
  readonly body: readonly Parameter[];
}

// Shared, never written (readonly), and not frozen: a frozen array's other elements kind would make the
// resolver's indexed loops polymorphic.
const NONE: readonly Parameter[] = [];

export function splitParameters(e: Pick<Endpoint, 'path' | 'parameters'>): SplitParameters {
  const all = e.parameters;
  let plain = true;
  for (let i = 0; i < all.length && plain; i++) plain = all[i].in !== 'path' && all[i].in !== 'body';
  // Most endpoints (every one of the exchange's) take neither: their list is shared as it is.
  if (plain) return { path: NONE, body: NONE };
  const t = parseTemplate(e.path);
  const order = typeof t === 'string' ? [] : t.params;
  const path = all.filter((p) => p.in === 'path').sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  return { path, body: all.filter((p) => p.in === 'body') };
}
