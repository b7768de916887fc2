// Client authentication of proxied requests: `Authorization: Bearer <token>` checked against the
// hashed tokens of GATEWAY_TOKENS_FILE and their allow-lists. Runs first among the proxy hooks,
// before validation, so a refused request never reaches the upstream. The Authorization header
// is never forwarded. A request a version change carries to another operation is checked again
// before it is signed and forwarded: a token's rights cover what the gateway sends, not only what
// the client names.
import type { Hook as ProxyHook } from '../pipeline.js';
import { GatewayError } from '../errors.js';
import type { Route } from '../routes/route-table.js';
import { userDataOperations } from '../../catalogue/user-data-streams.js';
import { allowsUserData, bearerToken, findToken, type TokenEntry } from './tokens.js';
import { certificateEntry, connectionOf } from './certificate.js';
import { spellingsOf } from '../params/form-params.js';
import type { RequestState } from '../request-state.js';

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
  const allowed = (entry: TokenEntry, route: Route): boolean => {
    const cache = decided.get(entry)!;
    let ok = cache.get(route);
    if (ok === undefined) cache.set(route, (ok = allows(entry, route)));
    return ok;
  };
  /** The token and operation each request was admitted with, for the check after a version change. */
  const admitted = new WeakMap<object, { entry: TokenEntry; route: Route }>();

  return {
    admit(state) {
      if (!opts.services.has(state.route.view.service.id)) return;
      refuseQueryToken(tokens, state);
      // The header holding the gateway token is never forwarded: the route's profile drops it (Authorization, unless the
      // service authenticates its callers with it, when the token travels in a header of its own).
      const header = state.route.profile.tokenHeader;
      const token = bearerToken(state.headers[header] as string | undefined);
      const shown = header === 'authorization' ? 'Authorization' : header;
      // No token: the client certificate of the connection may be named in the tokens file (mTLS).
      const byCertificate = token === undefined ? certificateEntry(tokens, connectionOf(state.headers)) : undefined;
      if (token === undefined && !byCertificate) {
        throw new GatewayError('unauthorized', `Client token required: send ${shown}: Bearer <token>.`, CHALLENGE);
      }
      if (token === null) throw new GatewayError('unauthorized', `${shown} must be "Bearer <token>".`, CHALLENGE);
      const entry = byCertificate ?? findToken(tokens, token!);
      if (!entry) {
        throw new GatewayError('unauthorized', 'Unknown client token.', { 'WWW-Authenticate': 'Bearer realm="gateway", error="invalid_token"' });
      }
      if (!allowed(entry, state.route)) {
        const userData = userDataOperations(state.route.view.service).has(state.route.endpoint.endpoint.key);
        throw new GatewayError('forbidden', `Client token "${entry.name}" is not allowed to call ${state.route.endpoint.endpoint.key}${userData ? ' (the account\'s user data: the token needs the user-data right in the tokens file)' : ''}.`);
      }
      state.token = entry;
      admitted.set(state, { entry, route: state.route });
    },
    prepare(state) {
      const a = admitted.get(state);
      if (!a || a.route === state.route || allowed(a.entry, state.route)) return;
      // The migrate stage moved the request to another operation (state.route is the target now).
      const sent = state.route.endpoint.endpoint.key;
      throw new GatewayError('forbidden', `Client token "${a.entry.name}" is not allowed to call ${sent}, which ${a.route.endpoint.endpoint.key} at ${a.route.view.release?.id ?? 'the pinned release'} is sent as (a version change): a token's rights are checked against the operation the gateway sends.`);
    },
  };
}

/**
 * On REST the client token travels in Authorization only: a `token` query parameter, however spelt
 * (`Token`, `%74oken`), is refused (400) rather than forwarded into the upstream's URL and logs. An
 * endpoint whose own parameter is `token` (the exchange's gift-card asset) keeps it, spelt plainly
 * and holding no client token.
 */
function refuseQueryToken(tokens: readonly TokenEntry[], state: RequestState): void {
  const q = state.url.indexOf('?');
  if (q < 0) return;
  for (const p of spellingsOf(state.url.slice(q + 1), 'token')) {
    const own = p.rawName === 'token' && state.route.params.knownParameters.some((x) => x.name === 'token');
    if (own && !findToken(tokens, p.value)) continue;
    const where = state.route.endpoint.endpoint.key;
    throw new GatewayError('invalid', own
      ? `Parameter 'token' of ${where} holds a client token: send it as Authorization: Bearer <token>; a client token is never put in the upstream's URL.`
      : `Query parameter '${p.rawName}' is refused on ${where}: the client token goes in Authorization: Bearer <token> (a token query parameter is for websocket upgrades only), and would otherwise reach the upstream's URL.`);
  }
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
