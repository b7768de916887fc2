// Carry a request's parameters up a plan: the query (and a form body) as name/value pairs in the
// order sent, rewritten by the plan's composed segments and transforms. Pairs the plan does not
// touch keep their exact bytes; changed or added ones are encoded as a client would.
import { type RequestPart } from '../../catalogue/changes/plan.js';
import { addedParams, mapParam, type Segment } from '../../catalogue/changes/segment.js';
import { transformNamed, type Params } from '../../catalogue/changes/transforms.js';
import { forEachParam } from '../params/form-params.js';
import { GatewayError } from '../errors.js';

export interface Pair {
  name: string;
  value: string;
  /** The pair's text as sent (null once changed). */
  raw: string | null;
  inBody: boolean;
}

/** The pairs of a query and a form body (body pairs after the query's, as the exchange reads them). */
export function readPairs(query: string, body: string | null): Pair[] {
  const out: Pair[] = [];
  const push = (text: string, inBody: boolean) => {
    if (!text) return;
    const raws = text.split('&').filter((x) => x !== '');
    let i = 0;
    forEachParam(text, (name, value) => { out.push({ name, value, raw: raws[i++] ?? null, inBody }); }, undefined);
  };
  push(query, false);
  if (body !== null) push(body, true);
  return out;
}

/** Apply the plan's request parts; added pairs go where the client's parameters are (the body if it sent a form). */
export function migratePairs(pairs: Pair[], parts: readonly RequestPart[], label: string): Pair[] {
  const inBody = pairs.some((p) => p.inBody) && !pairs.some((p) => !p.inBody && p.name !== 'signature' && p.name !== 'timestamp' && p.name !== 'recvWindow');
  let out = pairs;
  for (const part of parts) {
    if (part.kind === 'segment') out = applySegment(out, part.segment, inBody);
    else if (part.kind === 'transform') out = applyTransform(out, part.name, inBody, label);
    // json parts are the JSON body's (json-body.ts)
  }
  return out;
}

function applySegment(pairs: Pair[], seg: Segment, inBody: boolean): Pair[] {
  const out: Pair[] = [];
  for (const p of pairs) {
    const { to, mapped } = mapParam(seg, p.name, p.value);
    if (to === null) continue;
    out.push(to === p.name && mapped === undefined ? p : { name: to, value: mapped ?? p.value, raw: null, inBody: p.inBody });
  }
  for (const a of addedParams(seg, (name) => out.some((p) => p.name === name))) {
    const at = a.always ? out.findIndex((p) => p.name === a.name) : -1;
    if (at >= 0) out[at] = { ...out[at], value: a.value, raw: null };
    else out.push({ name: a.name, value: a.value, raw: null, inBody });
  }
  return out;
}

function applyTransform(pairs: Pair[], name: string, inBody: boolean, label: string): Pair[] {
  const params: Params = new Map(pairs.map((p) => [p.name, p.value]));
  const refused = transformNamed(name)!.request!(params);
  if (refused) throw new GatewayError('invalid', `${label}: ${refused}`);
  const out: Pair[] = [];
  for (const p of pairs) {
    if (!params.has(p.name) || out.some((q) => q.name === p.name)) continue;
    const v = params.get(p.name)!;
    out.push(v === p.value ? p : { ...p, value: v, raw: null });
  }
  for (const [k, v] of params) if (!out.some((p) => p.name === k)) out.push({ name: k, value: v, raw: null, inBody });
  return out;
}

/** The text of pairs: untouched ones as sent, the rest encoded. */
export function writePairs(pairs: readonly Pair[]): string {
  let s = '';
  for (const p of pairs) s += `${s ? '&' : ''}${p.raw ?? `${encodeURIComponent(p.name)}=${encodeURIComponent(p.value)}`}`;
  return s;
}
