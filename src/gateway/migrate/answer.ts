// Carry an upstream answer back down a plan: the answer steps of every change, newest first,
// applied to the parsed JSON. An answer that is not JSON is passed on as it came. Read and written
// again exactly (exact-json.ts): a value no step changes keeps the upstream's text (an id
// 9007199254740993 is not rounded to a double on the way back).
import type { AnswerStep } from '../../catalogue/changes/types.js';
import { transformNamed } from '../../catalogue/changes/transforms.js';
import { readJson, writeJson } from '../../upstream/exact-json.js';

export function migrateAnswer(steps: readonly AnswerStep[], status: number, body: Buffer): Buffer {
  try {
    return Buffer.from(writeJson(migrateData(steps, status, readJson(body.toString('utf8'), { duplicates: 'last' }))));
  } catch {
    return body; // not JSON (or a transform that could not read it): as it came
  }
}

/** The answer steps on parsed data (a websocket answer frame's result or error too). */
export function migrateData(steps: readonly AnswerStep[], status: number, answer: unknown): unknown {
  let data = answer;
  const failed = status >= 400;
  for (const s of steps) {
    if (failed) {
      if (s.kind === 'errors' && data && typeof data === 'object' && 'code' in data) {
        const code = String((data as { code: unknown }).code);
        if (Object.hasOwn(s.codes, code)) (data as { code: number }).code = s.codes[code];
      }
      continue;
    }
    switch (s.kind) {
      case 'rename': data = eachObject(data, (o) => { for (const [from, to] of Object.entries(s.names)) if (from in o) { o[to] = o[from]; delete o[from]; } }); break;
      case 'restore': data = eachObject(data, (o) => { for (const [k, v] of Object.entries(s.values)) if (!(k in o)) o[k] = v; }); break;
      case 'unwrap': if (Array.isArray(data) && data.length === 1) data = data[0]; break;
      case 'transform': data = transformNamed(s.name)!.answer!(data); break;
      case 'errors': break;
    }
  }
  return data;
}

/** The answer object, or each object of a list answer. */
function eachObject(data: unknown, f: (o: Record<string, unknown>) => void): unknown {
  if (Array.isArray(data)) for (const x of data) { if (x && typeof x === 'object') f(x as Record<string, unknown>); }
  else if (data && typeof data === 'object') f(data as Record<string, unknown>);
  return data;
}
