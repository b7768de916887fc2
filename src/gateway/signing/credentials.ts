// Credentials the gateway holds for upstreams that authenticate their callers themselves (the
// counterpart of signing mode for a service such as GitHub): on a request that presented a valid
// gateway token, the service's declared header (service.yaml credentials.inject) carries the held
// credential, and the client's own Authorization is not forwarded. A request without a gateway
// token is never given it. The credential itself is a Secret: no log, error or answer shows it.
import type { ReleaseView } from '../../catalogue/resolve.js';
import type { Secret } from '../../upstream/signing/secret.js';
import { credentialVariable } from '../../upstream/credentials.js';
import { UsageError } from '../../usage-error.js';
import type { Hook as ProxyHook } from '../pipeline.js';

/** The hook injecting each held credential; start-up problems are UsageErrors naming the variable, never the value. */
export function credentialHooks(held: ReadonlyMap<string, { secret: Secret; from: string }>, views: readonly ReleaseView[], tokensFile: string | undefined): ProxyHook[] {
  const hooks: ProxyHook[] = [];
  for (const [id, { secret, from }] of held) {
    const view = views.find((v) => v.service.id === id);
    if (!view) throw new UsageError(`${from}: the catalogue has no service "${id}"; valid: ${views.map((v) => v.service.id).join(', ')}`);
    const inject = view.service.credentials.inject;
    if (!inject) throw new UsageError(`${from}: service ${id} declares no credentials.inject in service.yaml, so the gateway would not know where to send it`);
    if (!tokensFile) throw new UsageError(`${from} is set, but no client tokens are configured: the credential is sent only for clients that present a gateway token (set GATEWAY_TOKENS_FILE, or unset ${credentialVariable(id)})`);
    hooks.push(injectHook(id, inject.header.toLowerCase(), `${inject.prefix}${secret.reveal()}`));
  }
  return hooks;
}

function injectHook(service: string, header: string, value: string): ProxyHook {
  // The drop sets a request may hold (its profile's, or the one for an answer to rewrite), each with the client's credentials added.
  const drops = new Map<ReadonlySet<string>, ReadonlySet<string>>();
  return {
    prepare(state) {
      if (state.route.view.service.id !== service || !state.token) return;
      let drop = drops.get(state.drop);
      if (!drop) drops.set(state.drop, (drop = new Set([...state.drop, 'authorization', header])));
      state.drop = drop;
      state.set = { ...state.set, [header]: value };
    },
  };
}
