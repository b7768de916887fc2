// Client frames checked against the catalogue before they are relayed: SUBSCRIBE / UNSUBSCRIBE on a
// stream connection, {id, method, params} requests on a websocket-API connection. A frame that fails
// is answered in the upstream's own error shape (with the request's id) and never forwarded; a frame
// that passes is forwarded as the exact bytes the client sent. Frames are read without changing a
// value (exact-json.ts: an id 9007199254740993 stays that id in the answer), and a frame that gives
// a key twice (two `method`s, a param twice) is refused: the check and the upstream could read
// different ones.
import type { Ajv } from 'ajv';
import { aliveAt, lifecycleFacts } from '../../catalogue/lifecycle.js';
import type { WsMethod } from '../../catalogue/model.js';
import type { ReleaseView } from '../../catalogue/resolve.js';
import { DuplicateKey, ExactNumber, isJsonObject, plainJson, readJson, writeJson } from '../../upstream/exact-json.js';
import { envelope, GatewayError } from '../errors.js';
import { checkParams, type ParamTarget } from '../params/validate-params.js';
import type { StreamMatcher } from './stream-names.js';

/** undefined: forward the frame unchanged; a string: answer the client with it instead. */
export type Verdict = string | undefined;


/** A request id as the client wrote it (an ExactNumber for one a double would change). */
export type Id = string | number | ExactNumber | null;
export const idOf = (v: unknown): Id => (typeof v === 'string' || typeof v === 'number' || v instanceof ExactNumber ? v : null);

/** A client frame read exactly: its object, the key it gives twice, or null when it is no JSON object. */
export function readFrame(data: Buffer | string): Record<string, unknown> | DuplicateKey | null {
  // Cheap pre-check: a JSON object starts with '{' (after optional white space).
  const text = typeof data === 'string' ? data : data.toString('utf8');
  let i = 0;
  while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  if (text[i] !== '{') return null;
  try {
    const v = readJson(text);
    return isJsonObject(v) ? v : null;
  } catch (e) {
    return e instanceof DuplicateKey ? e : null;
  }
}

/** The refusal of a frame that gives a key twice, and the id to answer it with (unless `id` is the key given twice). */
function duplicateRefusal(data: Buffer, dup: DuplicateKey): { id: Id; message: string } {
  let id: Id = null;
  if (!(dup.key === 'id' && dup.path === '')) {
    try { id = idOf((readJson(data.toString('utf8'), { duplicates: 'last' }) as { id?: unknown }).id); } catch { /* no id to give */ }
  }
  return { id, message: `Malformed request: the key '${dup.key}' is given more than once${dup.path ? ` in ${dup.path}` : ''}; send each key once.` };
}

/**
 * A client frame on a stream connection. SUBSCRIBE / UNSUBSCRIBE name streams: each is checked like
 * a name in the URL. Everything else (LIST_SUBSCRIPTIONS, SET_PROPERTY, text the gateway cannot
 * parse, ...) is the upstream's to answer and is forwarded. `forwarded` learns the names of a
 * SUBSCRIBE / UNSUBSCRIBE that passed (the connection's streams, checked again after a reload).
 */
export function checkStreamFrame(matcher: StreamMatcher, data: Buffer, forwarded?: (method: 'SUBSCRIBE' | 'UNSUBSCRIBE', names: string[]) => void): Verdict {
  const req = readFrame(data);
  if (req instanceof DuplicateKey) {
    const { id, message } = duplicateRefusal(data, req);
    const codes = matcher.view.service.errors.codes;
    return writeJson({ error: { code: codes.streamInvalid ?? codes.unknown, msg: `Invalid request: ${message}` }, id });
  }
  if (!req || (req.method !== 'SUBSCRIBE' && req.method !== 'UNSUBSCRIBE') || !Array.isArray(req.params)) return undefined;
  const refusals: string[] = [];
  const names: string[] = [];
  for (const name of req.params) {
    if (typeof name !== 'string') continue; // the upstream answers type errors itself
    const c = matcher.check(name);
    if (!c.ok) refusals.push(c.reason);
    else names.push(name);
  }
  if (!refusals.length) {
    forwarded?.(req.method, names);
    return undefined;
  }
  const more = refusals.length > 1 ? ` (and ${refusals.length - 1} more invalid stream name${refusals.length > 2 ? 's' : ''})` : '';
  // The stream server's own code for an invalid request, from service.yaml (errors.codes.streamInvalid).
  const codes = matcher.view.service.errors.codes;
  return writeJson({ error: { code: codes.streamInvalid ?? codes.unknown, msg: `Invalid request: ${refusals[0]}${more}` }, id: idOf(req.id) });
}

/** Charges a request frame to the rate limits: the refusal (429), or undefined to forward. */
export type FrameCharge = (method: WsMethod, params: Readonly<Record<string, unknown>>) => GatewayError | undefined;

/** What happened to a websocket-API request, for the connection's log and counters. */
export interface ApiRequestFacts {
  method: WsMethod;
  deprecated: boolean;
}

/** Checks websocket-API requests of one pinned release; compiled validators are shared by all connections. */
export class WsApiChecker {
  private readonly targets = new Map<string, ParamTarget>();
  private readonly byName = new Map<string, WsMethod>();
  private readonly releaseLabel: string;
  /** [wssign] Params the gateway supplies to a request (signing mode): not required of the client. */
  supplies?: (method: WsMethod, params: Record<string, unknown>) => ReadonlySet<string> | undefined;
  /** Told the name of a method the catalogue knows at no release (drift). */
  unknown?: (name: string) => void;

  constructor(
    readonly view: ReleaseView,
    private readonly ajv: Ajv,
    private readonly strict: boolean,
  ) {
    for (const m of view.wsMethods) this.byName.set(m.name, m);
    this.releaseLabel = view.release ? ` at ${view.release.id}` : '';
  }

  /**
   * Check one request frame. Returns the error answer, or undefined (forward) together with the
   * method it calls through `served`. A valid frame is then charged to the rate limits (`charge`).
   */
  check(data: Buffer, served?: (facts: ApiRequestFacts) => void, charge?: FrameCharge): Verdict {
    const req = readFrame(data);
    if (req instanceof DuplicateKey) {
      const { id, message } = duplicateRefusal(data, req);
      return this.answer(id, new GatewayError('duplicate', message));
    }
    if (!req) return this.answer(null, new GatewayError('missing', 'Malformed request: expected a JSON object {"id", "method", "params"}.'));
    const id = idOf(req.id);
    if (typeof req.method !== 'string' || req.method === '') {
      return this.answer(id, new GatewayError('missing', "Mandatory parameter 'method' was not sent, was empty/null, or malformed."));
    }
    const method = this.byName.get(req.method);
    if (!method) return this.answer(id, this.notServed(req.method));
    if (req.params !== undefined && !isJsonObject(req.params)) {
      return this.answer(id, new GatewayError('missing', `Malformed 'params' of ${method.name}: expected a JSON object.`));
    }
    // Validated (and charged) as JSON.parse reads the values; forwarded as the client wrote them.
    const params = plainJson(req.params ?? {}) as Record<string, unknown>;
    try {
      checkParams(this.ajv, this.target(method), params, {}, { strict: this.strict, supplied: this.supplies?.(method, params) });
    } catch (e) {
      if (e instanceof GatewayError) return this.answer(id, e);
      throw e;
    }
    const refused = charge?.(method, params);
    if (refused) return this.answer(id, refused);
    served?.({ method, deprecated: this.view.status(method) === 'deprecated' });
    return undefined;
  }

  /** "orderList.place at 3.8.0: deprecated in 3.8.0; use orderList.place.oco". */
  facts(method: WsMethod): string {
    return `${method.name}${this.releaseLabel}: ${lifecycleFacts(method, this.view.service.releases, this.view.at)}`;
  }

  private notServed(name: string): GatewayError {
    const lives = this.view.service.wsMethods.filter((m) => m.name === name);
    if (!lives.length) {
      this.unknown?.(name);
      return new GatewayError('notFound', `Unknown websocket API method '${name}': not in the catalogue.`);
    }
    // Of several lives of one method, name the one nearest the pin: the last removed, else the next added.
    const removed = lives.filter((m) => this.view.status(m) === 'removed').at(-1);
    const m = removed ?? lives[0];
    return new GatewayError('notFound', `Websocket API method '${name}' was ${lifecycleFacts(m, this.view.service.releases, this.view.at)}.`);
  }

  private target(method: WsMethod): ParamTarget {
    let t = this.targets.get(method.name);
    if (!t) {
      t = {
        label: method.name, view: this.view,
        parameters: aliveAt(method.parameters, this.view.at),
        knownParameters: method.parameters, constraints: method.constraints, cache: new Map(),
      };
      this.targets.set(method.name, t);
    }
    return t;
  }

  private answer(id: Id, e: GatewayError): string {
    // The websocket API answers a refused request with status 400 whatever the reason, except a rate
    // limit (429, as the exchange answers one) and the gateway's own trouble (5xx).
    return writeJson({ id, status: e.status === 429 || e.status >= 500 ? e.status : 400, error: envelope(this.view.service, e.reason, e.message) });
  }
}
