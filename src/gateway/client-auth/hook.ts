// Client authentication of proxied requests: `Authorization: Bearer <token>` checked against the
// hashed tokens of GATEWAY_TOKENS_FILE and their allow-lists. Runs first among the proxy hooks,
// before validation, so a refused request never reaches the upstream. The Authorization header
// is never forwarded.
import type { Hook as ProxyHook } from '../pipeline.js';
import { GatewayError } from '../errors.js';
import type { Route } from '../route-table.js';
import { userDataOperations } from '../../catalogue/user-data-streams.js';
import { allowsUserData, bearerToken, findToken, type TokenEntry } from './tokens.js';

export interface ClientAuthOptions {
  tokens: TokenEntry[];
  /** Services whose proxied endpoints need a token (e.g. the one the gateway signs for). */
  services: ReadonlySet<string>;
}

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="gateway"' };

export function clientAuthHook(opts: ClientAuthOptions): ProxyHook {
  const tokens = opts.tokens;
  // Allow-list decisions per token and endpoint: the route set is finite, so this stays small.
  const decided = new Map<TokenEntry, Map<Route, boolean>>(tokens.map((t) => [t, new Map()]));

  return {
    admit(state) {
      if (!opts.services.has(state.route.view.service.id)) return;
      // The client's Authorization (its gateway token) is never forwarded: the pipeline drops it for every request.
      const token = bearerToken(state.headers.authorization);
      if (token === undefined) {
        throw new GatewayError('unauthorized', 'Client token required: send Authorization: Bearer <token>.', CHALLENGE);
      }
      if (token === null) throw new GatewayError('unauthorized', 'Authorization must be "Bearer <token>".', CHALLENGE);
      const entry = findToken(tokens, token);
      if (!entry) {
        throw new GatewayError('unauthorized', 'Unknown client token.', { 'WWW-Authenticate': 'Bearer realm="gateway", error="invalid_token"' });
      }
      state.token = entry;
      const cache = decided.get(entry)!;
      let ok = cache.get(state.route);
      if (ok === undefined) cache.set(state.route, (ok = allows(entry, state.route)));
      if (!ok) {
        const userData = userDataOperations(state.route.view.service).has(state.route.endpoint.endpoint.key);
        throw new GatewayError('forbidden', `Client token "${entry.name}" is not allowed to call ${state.route.endpoint.endpoint.key}${userData ? ' (the account\'s user data: the token needs the user-data right in the tokens file)' : ''}.`);
      }
    },
  };
}

export function allows(t: TokenEntry, route: Route): boolean {
  const { method, path, module, key } = route.endpoint.endpoint;
  // The account's user data is a right of its own: the right allows it, an allow-list naming the path does not.
  if (userDataOperations(route.view.service).has(key)) return allowsUserData(t);
  if (t.methods && !t.methods.has(method)) return false;
  // A `ws:` entry (websocket-API methods) has neither module nor path: it allows no REST endpoint.
  return t.allow.some((a) => (!a.methods || a.methods.has(method)) && (a.module !== undefined ? a.module === module : a.path?.test(path) === true));
}

/** Module names a token file mentions that the catalogue does not have (start-up check). */
export function unknownModules(tokens: TokenEntry[], modules: ReadonlySet<string>): string[] {
  const out = new Set<string>();
  for (const t of tokens) for (const a of t.allow) if (a.module !== undefined && !modules.has(a.module)) out.add(`"${a.module}" (token "${t.name}")`);
  return [...out];
}

/** `ws:` entries that match no websocket-API method the catalogue has (start-up check: a typo allows nothing). */
export function unknownWsPatterns(tokens: TokenEntry[], methods: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const t of tokens) for (const a of t.allow) if (a.ws && ![...methods].some((m) => a.ws!.test(m))) out.push(`"${a.text.slice(3)}" (token "${t.name}")`);
  return out;
}
