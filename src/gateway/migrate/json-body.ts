// A request's JSON body carried up a plan: parsed exactly (exact-json.ts), the plan's JSON steps
// applied by the one applier (changes/apply.ts), written again. A body no step changes keeps its
// bytes; in a changed one, every value no step touches keeps its text.
import type { Ajv } from 'ajv';
import { applyJson, StepRefusal } from '../../catalogue/changes/apply.js';
import type { JsonStep } from '../../catalogue/changes/plan.js';
import { isJsonObject, plainJson, readJson, writeJson } from '../../upstream/exact-json.js';
import { GatewayError } from '../errors.js';
import type { Route } from '../routes/route-table.js';
import { checkBody, takesJsonBody } from '../stages/validate-body.js';

const JSON_TYPE = /^application\/(.+\+)?json\b/i;

/** The body to send, or null when it goes as it came (not JSON, or nothing to change); refusals are thrown. */
export function migrateJsonBody(body: Buffer, contentType: string | undefined, steps: readonly JsonStep[], label: string): { data: unknown; bytes: Buffer } | null {
  if (!body.length || !JSON_TYPE.test(contentType ?? '')) return null;
  let data: unknown;
  try {
    // A key given twice is refused: a body the gateway rewrites must mean one thing to it and to the upstream.
    data = readJson(body.toString('utf8'));
  } catch (e) {
    throw new GatewayError('invalid', `${label}: the JSON body cannot be carried to the upstream's release: ${(e as Error).message}`);
  }
  if (!isJsonObject(data)) return null;
  try {
    if (!applyJson(data, steps)) return null;
  } catch (e) {
    if (e instanceof StepRefusal) throw new GatewayError(e.gone ? 'gone' : 'invalid', `${label}: ${e.message}`);
    throw e;
  }
  return { data, bytes: Buffer.from(writeJson(data), 'utf8') };
}

/** The migrated body checked where it is going: the target's body schema at the upstream's release. */
export function revalidateBody(ajv: Ajv, target: Route, data: unknown): void {
  if (takesJsonBody(target)) checkBody(ajv, target, plainJson(data));
}
