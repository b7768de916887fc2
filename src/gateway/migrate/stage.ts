// The migrate stage of the pipeline (after parameters): a request made at an older release goes up
// its plan to the release the upstream speaks, and is validated again there. Signed requests: where
// the plan changes signed bytes, the gateway verifies the client's signature as received (401
// otherwise), takes it off, migrates, and the signing hook signs the result with the same
// timestamp and recvWindow; without a key such a plan was refused when it was compiled.
import { carriesSignature, queryOf } from '../../upstream/signing/sign-request.js';
import { GatewayError } from '../errors.js';
import type { Exchange, RequestState } from '../pipeline.js';
import { checkParams } from '../validate-params.js';
import type { Ajv } from 'ajv';
import type { CompiledPlan } from './compile.js';
import { readPairs, migratePairs, writePairs } from './request.js';
import { verifySignature } from './verify.js';

const FORM_TYPE = /^application\/x-www-form-urlencoded/i;
/** What the signing hook supplies once the migrated request is signed again. */
const SIGNING: ReadonlySet<string> = new Set(['timestamp', 'signature']);
const NEVER_FORWARDED_PLAIN: ReadonlySet<string> = new Set(['authorization', 'x-gateway-release', 'accept-encoding']);

export interface StageContext {
  paramAjv: Ajv;
  strict: boolean;
}

export function migrateRequest(p: StageContext, ex: Exchange, state: RequestState, c: CompiledPlan): void {
  const { plan } = c;
  if (c.refusal !== null) throw new GatewayError('gone', c.refusal);
  for (const g of c.guards) {
    const v = state.params[g.parameter];
    if (v !== undefined && g.values.has(String(v))) throw new GatewayError('gone', `${plan.operation}: ${g.parameter}=${String(v)}: ${g.message}`);
  }
  const query = queryOf(state.url);
  let url = plan.path;
  if (plan.request.length) {
    const resign = c.signer !== undefined && carriesSignature(state.url, state.body);
    if (resign && !verifySignature(c.signer!, query, state.body)) {
      throw new GatewayError('badSignature', `Signature for this request is not valid (${plan.operation} at ${plan.release}): the gateway verifies a signed request before migrating it`);
    }
    const form = state.body.length > 0 && FORM_TYPE.test(state.headers['content-type'] ?? '');
    let pairs = migratePairs(readPairs(query, form ? state.body.toString('utf8') : null), plan.request, `${plan.operation} → ${plan.target}`);
    if (resign) pairs = pairs.filter((x) => x.name !== 'signature');
    const q = writePairs(pairs.filter((x) => !x.inBody));
    if (q) url += `?${q}`;
    if (form) state.body = Buffer.from(writePairs(pairs.filter((x) => x.inBody)), 'utf8');
    // Validated again where it is going: the target operation at the upstream's release.
    const values: Record<string, string | string[]> = {};
    for (const x of pairs) if (x.name !== 'signature') values[x.name] = x.value;
    checkParams(p.paramAjv, c.target.params, values, state.headers, { strict: p.strict, supplied: c.signer ? SIGNING : state.supplied });
    state.params = values;
  } else if (query) url += `?${query}`;
  state.url = url;
  if (plan.method !== ex.req.method) state.method = plan.method;
  state.route = c.target;
  state.own['x-gateway-migrated'] = c.header;
  ex.migrated = c.header;
  if (c.answer) {
    state.answer = c.answer;
    state.drop = NEVER_FORWARDED_PLAIN; // an answer to rewrite must come back uncompressed
  }
}
