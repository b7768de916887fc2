// Carry an upstream answer back down a plan: the answer steps of every change, newest first, on
// the status and the parsed JSON (changes/apply.ts). An answer that is not JSON keeps its bytes
// (its status steps still apply). Read and written again exactly (exact-json.ts): a value no step
// changes keeps the upstream's text (an id 9007199254740993 is not rounded to a double on the way back).
import { applyAnswer, NOT_JSON } from '../../catalogue/changes/apply.js';
import type { AnswerStep } from '../../catalogue/changes/types.js';
import { readJson, writeJson } from '../../upstream/exact-json.js';

/** The answer the client gets: its status, and its body (null: none, as a 204 or 304 has). */
export function migrateAnswer(steps: readonly AnswerStep[], status: number, body: Buffer): { status: number; body: Buffer | null } {
  let data: unknown = NOT_JSON;
  try { data = readJson(body.toString('utf8'), { duplicates: 'last' }); } catch { /* not JSON: its bytes as they came */ }
  let out: ReturnType<typeof applyAnswer>;
  try {
    out = applyAnswer(steps, status, data);
  } catch {
    return { status, body }; // a transform that could not read it: as it came
  }
  if (out.status === 204 || out.status === 304) return { status: out.status, body: null };
  return { status: out.status, body: data === NOT_JSON ? body : Buffer.from(writeJson(out.data)) };
}
