// Who may open a websocket through a gateway that holds credentials: checked on the upgrade request,
// before any upstream connection, answered as HTTP like any refused request.
//   - Signing mode: the cross-site guard (Origin, Sec-Fetch-Site, Host) of the signed service, as
//     for its REST requests: a web page must not drive the gateway's key over a websocket either.
//   - Client tokens configured: a token is required, as for REST (401 without, or unknown). It comes
//     in the Authorization header (Bearer), or, for clients that cannot set headers on an upgrade
//     (browsers), in a `token` query parameter, which is removed before the upstream is dialled.
//     The token's `ws:` entries are then checked per websocket-API frame (frame-signing.ts).
import type { IncomingMessage } from 'node:http';
import { bearerToken, findToken, type TokenEntry } from '../client-auth/tokens.js';
import { certificateEntry } from '../client-auth/certificate.js';
import { crossSiteRefusal, type CrossSiteGuard } from '../stages/cross-site.js';
import { GatewayError } from '../errors.js';
import { spellingsOf } from '../params/form-params.js';

export interface UpgradeAuth {
  /** Client tokens (GATEWAY_TOKENS_FILE); undefined: none configured, upgrades need no token. */
  tokens?: readonly TokenEntry[];
  /** The served program's cross-site guard; applies when `service` is one it guards. */
  crossSite?: CrossSiteGuard;
  /** The service the websocket routes belong to. */
  service?: string;
}

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="gateway"' };

/**
 * Check an upgrade; returns the client's token entry (undefined when no tokens are configured).
 * Strips a `token` query parameter from req.url (it must never reach the upstream or a log line).
 */
export function authenticateUpgrade(auth: UpgradeAuth, req: IncomingMessage): TokenEntry | undefined {
  const fromQuery = takeQueryToken(req);
  const { crossSite, service } = auth;
  if (crossSite && service && crossSite.services.has(service)) {
    const refusal = crossSiteRefusal(crossSite, req.headers, `this gateway signs requests for ${service}`);
    if (refusal) throw new GatewayError('crossSite', refusal);
  }
  if (!auth.tokens) return undefined;
  const header = req.headers.authorization;
  let token: string | null | undefined = bearerToken(header);
  if (token === undefined) token = fromQuery;
  const byCertificate = token === undefined ? certificateEntry(auth.tokens, req.socket) : undefined; // mTLS: a certificate the tokens file names
  if (byCertificate) return byCertificate;
  if (token === undefined) throw new GatewayError('unauthorized', 'A client token is required: send Authorization: Bearer <token> (or ?token=<token> when the client cannot set headers).', CHALLENGE);
  if (token === null) throw new GatewayError('unauthorized', 'Authorization must be "Bearer <token>".', CHALLENGE);
  const entry = findToken(auth.tokens, token);
  if (!entry) throw new GatewayError('unauthorized', 'Unknown client token.', { 'WWW-Authenticate': 'Bearer realm="gateway", error="invalid_token"' });
  return entry;
}

/**
 * The `token` query parameter (decoded; null when malformed), removed from req.url however it is
 * spelt (`Token`, `%74oken`: the upstream must never see one). Given more than once: refused (400).
 */
function takeQueryToken(req: IncomingMessage): string | null | undefined {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  if (q < 0) return undefined;
  const query = url.slice(q + 1);
  const found = spellingsOf(query, 'token');
  if (!found.length) return undefined;
  const taken = new Set(found.map((p) => p.raw));
  const rest = query.split('&').filter((x) => x !== '' && !taken.has(x)).join('&');
  req.url = rest ? `${url.slice(0, q)}?${rest}` : url.slice(0, q);
  if (found.length > 1) throw new GatewayError('duplicate', `The token query parameter was sent ${found.length} times (${found.map((p) => `'${p.rawName}'`).join(', ')}): send one.`);
  const t = found[0].value;
  return /^[\x21-\x7e]{1,512}$/.test(t) ? t : null;
}
