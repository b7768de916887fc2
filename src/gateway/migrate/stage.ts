// The migrate stage of the pipeline (after parameters): a request made at an older release goes up
// its plan to the release the upstream speaks, and is validated again there. Signed requests: where
// the migration changes signed bytes, the gateway verifies the client's signature as received (401
// otherwise), takes it off, migrates, and the signing hook signs the result with the same
// timestamp and recvWindow; without a key such a request is refused 410, never forwarded.
import type { Ajv } from 'ajv';
import { carriesSignature, queryOf } from '../../upstream/signing/sign-request.js';
import { GatewayError } from '../errors.js';
import type { RequestState } from '../request-state.js';
import { checkParams } from '../params/validate-params.js';
import type { CompiledPlan } from './compile.js';
import { migratePairs, readPairs, writePairs, type Pair } from './request.js';
import { migrateJsonBody, revalidateBody } from './json-body.js';
import { carryPath } from './path.js';
import { verifySignature } from './verify.js';
import { guardRefusal } from './decide.js';

export interface StageContext {
  paramAjv: Ajv;
  bodyAjv: Ajv;
  strict: boolean;
}

const FORM_TYPE = /^application\/x-www-form-urlencoded/i;
/** What the signing hook supplies once the migrated request is signed again. */
const SIGNING: ReadonlySet<string> = new Set(['timestamp', 'signature']);

/** Migrate `state` up the plan; returns the X-Gateway-Migrated value (for the access line). */
export function migrateRequest(p: StageContext, state: RequestState, c: CompiledPlan): string {
  const { plan } = c;
  const method = state.route.endpoint.endpoint.method; // the operation's (a HEAD of a GET stays a HEAD unless the method moves)
  if (c.refusal !== null) throw new GatewayError('gone', c.refusal);
  if (plan.bridge) {
    // Answered by the gateway itself (pipeline.ts): nothing of the request goes upstream.
    state.bridged = plan.bridge;
    state.own['x-gateway-migrated'] = c.header;
    return c.header;
  }
  const guarded = guardRefusal(c.guards, state.params, plan.operation);
  if (guarded) throw guarded;
  const query = queryOf(state.url);
  let url = pathOf(state, plan.path);
  if (plan.request.length) {
    const form = state.body.length > 0 && FORM_TYPE.test(state.headers['content-type'] ?? '');
    const sent = readPairs(query, form ? state.body.toString('utf8') : null);
    let pairs = migratePairs(sent, plan.request, `${plan.operation} → ${plan.target}`);
    const json = c.json && !form ? migrateJsonBody(state.body, state.headers['content-type'], c.json, plan.operation) : null;
    const changed = json !== null || pairs.length !== sent.length || pairs.some((x, i) => x !== sent[i]);
    const clientSigned = carriesSignature(state.url, state.body);
    if (changed && clientSigned) {
      if (c.refuseChanged !== null) throw new GatewayError('gone', c.refuseChanged);
      if (c.signer && !verifySignature(c.signer, query, state.body)) {
        throw new GatewayError('badSignature', `Signature for this request is not valid (${plan.operation} at ${plan.release}): the gateway verifies a signed request before migrating it`);
      }
      pairs = pairs.filter((x) => x.name !== 'signature'); // signed again by the signing hook
    } else if (changed && c.refuseChanged !== null && plan.security.from === 'SIGNED') {
      throw new GatewayError('gone', c.refuseChanged); // unsigned, and no key to sign it: the upstream would refuse it
    }
    const q = writePairs(pairs.filter((x) => !x.inBody));
    if (q) url += `?${q}`;
    if (form) state.body = Buffer.from(writePairs(pairs.filter((x) => x.inBody)), 'utf8');
    else if (json) {
      state.body = json.bytes; // Content-Length is the forward's, from these bytes
      revalidateBody(p.bodyAjv, c.target, json.data);
    }
    revalidate(p, state, c, pairs);
  } else if (query) url += `?${query}`;
  state.url = url;
  if (plan.method !== method) state.method = plan.method;
  state.route = c.target;
  state.own['x-gateway-migrated'] = c.header;
  if (c.rewrite) {
    state.answer = c.rewrite;
    state.drop = c.target.profile.dropPlain; // an answer to rewrite must come back uncompressed
  }
  return c.header;
}

/** The path the request goes to: the client's bytes while the operation's path stays, else the target's template filled. */
function pathOf(state: RequestState, to: string): string {
  const q = state.url.indexOf('?');
  const ep = state.route.endpoint.endpoint;
  const multi = (name: string) => ep.parameters.some((x) => x.name === name && x.in === 'path' && x.multiSegment === true);
  return carryPath(ep.path, q < 0 ? state.url : state.url.slice(0, q), to, multi);
}

/** Validated again where it is going: the target operation at the upstream's release. */
function revalidate(p: StageContext, state: RequestState, c: CompiledPlan, pairs: readonly Pair[]): void {
  const values: Record<string, string | string[]> = {};
  // Path parameters are carried across by name (pathOf): their values as the client's were checked.
  for (const x of c.target.params.parameters) if (x.in === 'path' && state.params[x.name] !== undefined) values[x.name] = String(state.params[x.name]);
  for (const x of pairs) values[x.name] = x.value;
  checkParams(p.paramAjv, c.target.params, values, state.headers, { strict: p.strict, supplied: c.signer ? SIGNING : state.supplied });
  state.params = values;
}
