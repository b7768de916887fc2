// The signing stage of the proxy: for the signed service, an endpoint SIGNED at the pinned release
// gets timestamp (+ recvWindow) and signature appended and the API-key header set; an API_KEY
// endpoint gets the API-key header. A request the client signed itself passes unchanged, and so
// does an API_KEY request that brings its own key header.
import type { Secret } from '../../upstream/signing/secret.js';
import { carriesSignature, queryOf, signUrl } from '../../upstream/signing/sign-request.js';
import type { Signer } from '../../upstream/signing/signers.js';
import type { Hook as ProxyHook, RequestState as ProxyRequestState } from '../pipeline.js';
import { GatewayError } from '../errors.js';
import { spellingsOf } from '../params/form-params.js';

export interface SigningHookOptions {
  service: string;
  /** Header the API key travels in (service.yaml security.apiKeyHeader). */
  header: string;
  apiKey: Secret;
  signer: Signer;
  recvWindow?: string;
  clock?: () => number;
}

const SIGNED_QUERY = /(?:^|&)signature=/;

const FORM_TYPE = /^application\/x-www-form-urlencoded/i;

/**
 * A request the gateway signs carries no signature of its own as `signature`, but it may carry one
 * spelt otherwise (`%73ignature`, `Signature`): the upstream would get two. Refused (400) naming it.
 */
function refuseOtherSignatures(state: ProxyRequestState): void {
  const form = state.body.length > 0 && FORM_TYPE.test(state.headers['content-type'] ?? '');
  const odd = spellingsOf(queryOf(state.url), 'signature')[0] ?? (form ? spellingsOf(state.body.toString('utf8'), 'signature')[0] : undefined);
  if (!odd) return;
  throw new GatewayError('duplicate', `Parameter '${odd.rawName}' reads as 'signature', which the gateway adds to this request (${state.route.endpoint.endpoint.key}): send it unsigned, or signed with 'signature' spelt plainly.`);
}

export function signingHook(opts: SigningHookOptions): ProxyHook {
  const header = opts.header.toLowerCase();
  const apiKey = opts.apiKey.reveal();
  const clock = opts.clock ?? Date.now;
  const sign = (p: string | Buffer) => opts.signer.sign(p);
  // What each role supplies, built once: a request's supplied set is replaced, never added to (it may be shared).
  const supplies = { key: new Set([opts.header]), sign: new Set([opts.header, 'timestamp', 'signature']) };

  /** What the gateway adds to this request: nothing, the key header, or key + signature. */
  function role(state: ProxyRequestState): 'none' | 'key' | 'sign' {
    if (state.route.view.service.id !== opts.service) return 'none';
    const security = state.route.endpoint.security;
    if (security === 'SIGNED') return SIGNED_QUERY.test(queryOf(state.url)) ? 'none' : 'sign';
    if (security === 'API_KEY') return state.headers[header] ? 'none' : 'key';
    return 'none';
  }

  return {
    admit(state) {
      const r = role(state);
      if (r === 'none') return;
      const add = supplies[r];
      state.supplied = state.supplied.size ? new Set([...state.supplied, ...add]) : add;
    },
    prepare(state) {
      const r = role(state);
      if (r === 'none') return;
      if (r === 'sign') {
        if (carriesSignature(state.url, state.body)) return; // signed in the form body
        refuseOtherSignatures(state);
        state.url = signUrl(state.url, state.body, sign, { now: clock(), recvWindow: opts.recvWindow });
      }
      state.headers = { ...state.headers, [header]: apiKey };
    },
  };
}
