// Signing mode on a websocket-API connection. Each client request frame is, in order:
//   1. refused with a 403 error frame (-2015, the REST code) when the connection's token does not
//      allow its method (`ws:` entries of the tokens file), never forwarded;
//   2. checked against the catalogue at the connection's release (the usual WsApiChecker), with the
//      params the gateway supplies (apiKey, timestamp, signature) no longer required of the client;
//   3. for the signed service: a SIGNED method sent without `signature` gets apiKey, timestamp
//      (+ recvWindow) and signature; an API_KEY method sent without `apiKey` gets apiKey. A frame
//      that brings its own signature (or key) passes unchanged, as over REST.
// A frame that opens a user-data subscription with the gateway's key is refused first (429) when its
// token holds the most it may (user-data-subscriptions.ts), before any check charges it.
// Only frames the gateway changes are written again, and then every value it did not add keeps the
// client's text (exact-json.ts: ids and numbers are never read as doubles); every other frame keeps
// the client's bytes.
import { currentAt } from '../../catalogue/lifecycle.js';
import type { WsMethod } from '../../catalogue/model.js';
import type { AwaitingInspect, Inspect } from '../../upstream/ws-relay.js';
import type { Secret } from '../../upstream/signing/secret.js';
import type { Signer } from '../../upstream/signing/signers.js';
import { signWsParams } from '../../upstream/signing/ws-api-params.js';
import { userDataOperations } from '../../catalogue/user-data-streams.js';
import { DuplicateKey, isJsonObject, writeJson } from '../../upstream/exact-json.js';
import { allowsUserData, allowsWsMethod, type TokenEntry } from '../client-auth/tokens.js';
import type { UserDataBridge } from '../user-data/bridge.js';
import { envelope, GatewayError } from '../errors.js';
import { idOf, readFrame, type WsApiChecker } from './frames.js';
import type { ConnectionSubscriptions } from './user-data-subscriptions.js';

/** The gateway's credentials for the websocket API of one service (signing mode). */
export interface WsSigning {
  service: string;
  apiKey: Secret;
  signer: Signer;
  recvWindow?: string;
  clock?: () => number;
}

type Role = 'none' | 'key' | 'sign';
const SUPPLIES: Record<Role, ReadonlySet<string> | undefined> = {
  none: undefined, key: new Set(['apiKey']), sign: new Set(['apiKey', 'timestamp', 'signature']),
};

/** What the gateway adds to a request for `method` (security at the pinned release) with these params. */
function roleOf(method: WsMethod, at: number, params: Record<string, unknown>): Role {
  const security = currentAt(method.security, at)?.scheme ?? 'NONE';
  if (security === 'SIGNED') return params.signature === undefined ? 'sign' : 'none';
  if (security === 'API_KEY') return params.apiKey === undefined ? 'key' : 'none';
  return 'none';
}

/** A method that needs a key sent with the client's own credentials: the gateway adds nothing. */
function ownCredentials(method: WsMethod, at: number, params: Record<string, unknown>): boolean {
  return (currentAt(method.security, at)?.scheme ?? 'NONE') !== 'NONE' && roleOf(method, at, params) === 'none';
}

/** Teach a checker which params the gateway supplies, so that the client need not send them. */
export function supplyParams(checker: WsApiChecker, signing: WsSigning | undefined): void {
  if (!signing || checker.view.service.id !== signing.service) return;
  const at = checker.view.at;
  checker.supplies = (method, params) => SUPPLIES[roleOf(method, at, params)];
}

/** The method a frame the gateway rewrote calls. */
function methodOf(frame: Buffer | string): string | undefined {
  try {
    const v = JSON.parse(typeof frame === 'string' ? frame : frame.toString('utf8')) as { method?: unknown };
    return typeof v?.method === 'string' ? v.method : undefined;
  } catch {
    return undefined;
  }
}


/**
 * The inspect of one websocket-API connection in signing mode: `check` is the catalogue's (its
 * answer wins), `token` the connection's client token (undefined: no tokens configured),
 * `subscriptions` the connection's user-data subscriptions (signing mode).
 */
export function signingInspect(checker: WsApiChecker, check: Inspect, signing: WsSigning | undefined, token: TokenEntry | undefined, bridged?: { methods: ReadonlyMap<string, string>; bridge?: UserDataBridge }, subscriptions?: ConnectionSubscriptions): AwaitingInspect {
  const service = checker.view.service;
  const userData = userDataOperations(service);
  const ours = signing?.service === service.id ? signing : undefined;
  const byName = new Map(checker.view.wsMethods.map((m) => [m.name, m]));
  const apiKey = ours?.apiKey.reveal();
  const clock = ours?.clock ?? Date.now;
  return (data, isBinary) => {
    const read = readFrame(data);
    const req = read instanceof DuplicateKey ? undefined : read ?? undefined; // the checker answers malformed frames and keys given twice
    const name = typeof req?.method === 'string' ? req.method : undefined;
    const method = name === undefined ? undefined : byName.get(name);
    const params = isJsonObject(req?.params) ? req!.params : {};
    const answerError = (e: GatewayError) => writeJson({ id: idOf(req!.id), status: e.status, error: envelope(service, e.reason, e.message) });
    const refuse = (message: string) => answerError(new GatewayError('forbidden', message));
    const isUserData = name !== undefined && userData.has(`ws-api ${name}`);
    if (token?.revoked) return refuse(`Client token "${token.name}" was revoked by a reload of the tokens file.`);
    // The account's user data is a right of its own: the right allows its methods, `ws:` entries do not.
    if (token && name !== undefined && (isUserData ? !allowsUserData(token) : !allowsWsMethod(token, name))) {
      return refuse(`Client token "${token.name}" is not allowed to call ${name}${isUserData ? ' (the account\'s user data: the token needs the user-data right in the tokens file)' : ''}.`);
    }
    // [user data] A method the listen-key bridge answers (signing mode): answered here, never forwarded.
    const action = name === undefined ? undefined : bridged?.methods.get(name);
    if (action !== undefined && bridged?.bridge) {
      return bridged.bridge.act(action, token?.name ?? '', params.listenKey as string | undefined).then(
        (out) => writeJson({ id: idOf(req!.id), status: 200, result: out.body }),
        (e) => {
          if (!(e instanceof GatewayError)) throw e;
          return answerError(e);
        },
      );
    }
    // [user data] Only subscriptions the gateway's key makes count: a frame signed by the client is its own affair.
    const counted = ours && method?.subscription && (method.subscription.role === 'ends' || !ownCredentials(method, checker.view.at, params)) ? method.subscription : undefined;
    const bounded = counted?.role === 'opens' ? subscriptions?.refusal() : undefined;
    if (bounded) return answerError(new GatewayError('tooManyRequests', bounded));
    const answer = check(data, isBinary);
    if (token && name !== undefined && typeof answer === 'object') {
      // A version change carried the frame to another method: the token's rights cover that one too.
      const sent = methodOf(answer.forward);
      if (sent !== name && (sent === undefined || !allowsWsMethod(token, sent))) {
        return refuse(`Client token "${token.name}" is not allowed to call ${sent ?? 'the method'}, which ${name} at ${checker.view.release?.id ?? 'the pinned release'} is sent as (a version change): a token's rights are checked against the method the gateway sends.`);
      }
    }
    if (typeof answer !== 'string' && counted) subscriptions?.sent(req!.id, counted, params);
    if (answer !== undefined || !ours || !req || name === undefined) return answer;
    const role = method ? roleOf(method, checker.view.at, params) : 'none';
    if (role === 'none') return undefined;
    const signed = role === 'sign' ? signWsParams(params, ours.signer, { apiKey: apiKey!, now: clock(), recvWindow: ours.recvWindow }) : { ...params, apiKey };
    return { forward: writeJson({ ...req, params: signed }) }; // every value the gateway did not add as the client wrote it
  };
}
