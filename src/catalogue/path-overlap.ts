// Whether one request path could match two templates, and which one the router's rule gives it to.
// Lint warns where neither template is the more specific at every segment: there the rule, not
// the author's evident intent, picks the operation. Pure: the loader calls it, the router states the same rule.
import type { PathTemplate } from './path-template.js';

/** The router's precedence between templates, as the lint lines and the docs state it. */
export const ROUTER_RULE = 'at each segment, left to right, a static segment wins over a single-segment parameter, which wins over a multi-segment one; a multi-segment parameter takes as few segments as let the rest match';

/** A template with which of its parameters may span several segments, and what text each accepts. */
export interface Routed {
  template: PathTemplate;
  multiSegment: (name: string) => boolean;
  /** Whether the parameter's schema takes this text (an integer id never takes "comments"); default: any text. */
  accepts?: (name: string, text: string) => boolean;
}

export interface Overlap {
  /** A path both templates match (parameter segments shown as x). */
  example: string;
  /** Which template the rule gives it to: 0 the first, 1 the second; null when they tie at every segment (the rule cannot choose). */
  winner: 0 | 1 | null;
}

/** Which template the segments so far favour: none yet, the first, the second, or both in turn. */
const Lead = { None: 0, First: 1, Second: 2, Crossed: 3 } as const;
type Lead = (typeof Lead)[keyof typeof Lead];

type Token = { text: string | null; rank: number; multi: boolean; accepts: (text: string) => boolean };

const ANY = () => true;

function tokens(r: Routed): Token[] {
  return r.template.segments.map((s) => {
    const name = s.param;
    if (name === null) return { text: s.text, rank: 2, multi: false, accepts: ANY };
    const multi = r.multiSegment(name);
    // A multi-segment value is checked whole, so one of its segments may be any text.
    return { text: null, rank: multi ? 0 : 1, multi, accepts: r.accepts && !multi ? (text: string) => r.accepts!(name, text) : ANY };
  });
}

/** Whether one segment of a path can be taken by both tokens. */
function compatible(x: Token, y: Token): boolean {
  if (x.text !== null && y.text !== null) return x.text === y.text;
  if (x.text !== null) return y.accepts(x.text);
  if (y.text !== null) return x.accepts(y.text);
  return true;
}

/**
 * A path matching both templates where the precedence is not one-sided (one template wins at a
 * segment, the other at a later one, or they tie everywhere), or null when there is none: then the
 * more specific template always wins, as a reader expects.
 */
export function ambiguity(a: Routed, b: Routed): Overlap | null {
  const ta = tokens(a);
  const tb = tokens(b);
  const seen = new Set<string>();
  const walk = (i: number, j: number, lead: Lead, first: 0 | 1 | null, path: string[]): Overlap | null => {
    if (i === ta.length && j === tb.length) {
      return lead === Lead.Crossed || lead === Lead.None ? { example: `/${path.join('/')}`, winner: first } : null;
    }
    if (i === ta.length || j === tb.length) return null;
    const key = `${i} ${j} ${lead}`;
    if (seen.has(key)) return null;
    seen.add(key);
    const x = ta[i];
    const y = tb[j];
    if (!compatible(x, y)) return null;
    const diff: Lead | null = x.rank === y.rank ? null : x.rank > y.rank ? Lead.First : Lead.Second;
    const next: Lead = diff === null || lead === diff ? lead : lead === Lead.None ? diff : Lead.Crossed;
    const winner = first ?? (diff === null ? null : diff === Lead.First ? 0 : 1);
    const segment = x.text ?? y.text ?? 'x';
    for (const ni of x.multi ? [i + 1, i] : [i + 1]) {
      for (const nj of y.multi ? [j + 1, j] : [j + 1]) {
        const found = walk(ni, nj, next, winner, [...path, segment]);
        if (found) return found;
      }
    }
    return null;
  };
  return walk(0, 0, Lead.None, null, []);
}
