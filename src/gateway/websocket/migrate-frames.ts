// Version changes on websocket connections (docs/version-changes.md, "Websockets"): a connection pinned at an
// older release has its websocket-API request frames carried up the composed plan of their method to
// the release the upstream speaks (method moved, params mapped, validated again there, signed again
// in signing mode), their answers carried back down, and stream names the upstream no longer has
// refused naming the replacement. Built once per websocket gateway (one served release); a release
// nothing changed for gets null and its connections run exactly as before.
import type { Ajv } from 'ajv';
import { composePlan } from '../../catalogue/changes/compose.js';
import { upstreamIndex } from '../../catalogue/changes/lookup.js';
import { type Plan, type RequestPart } from '../../catalogue/changes/plan.js';
import { applyAnswer, applyRequest, StepRefusal } from '../../catalogue/changes/apply.js';
import type { AnswerStep } from '../../catalogue/changes/types.js';
import { STREAM, WS_API } from '../../catalogue/changes/ws-operations.js';
import { currentAt } from '../../catalogue/lifecycle.js';
import type { Service, Stream, WsMethod } from '../../catalogue/model.js';
import { resolveServiceAt, type ReleaseView } from '../../catalogue/resolve.js';
import type { Logger } from '../../log.js';
import type { Inspect } from '../../upstream/ws-relay.js';
import { signWsParams, wsSignaturePayload } from '../../upstream/signing/ws-api-params.js';
import { isJsonObject, readJson, writeJson } from '../../upstream/exact-json.js';
import { envelope, GatewayError } from '../errors.js';
import { decide, guardRefusal, useInstead, type PlanDecisions } from '../migrate/decide.js';
import { signatureMatches } from '../migrate/verify.js';
import { supplyParams, type WsSigning } from './frame-signing.js';
import { idOf, readFrame, WsApiChecker, type ApiRequestFacts, type FrameCharge, type Id } from './frames.js';
import type { StreamCheck, StreamMatcher } from './stream-names.js';

/** Answers awaited per connection whose frames come back migrated: a bound on memory, not on requests. */
const MAX_PENDING = 1024;

interface MethodPlan extends PlanDecisions {
  plan: Plan;
}

/** A stream matcher that also refuses the names of templates the upstream no longer has (410 on an upgrade). */
export function refusingGoneStreams(matcher: StreamMatcher, m: FrameMigrations | null): StreamMatcher {
  if (!m) return matcher;
  const check = matcher.check.bind(matcher);
  const pinned = matcher.view.release ? ` at ${matcher.view.release.id}` : '';
  return Object.assign(Object.create(matcher) as StreamMatcher, {
    check(name: string): StreamCheck {
      const c = check(name);
      const gone = c.ok ? m.streamRefusal(c.stream) : undefined;
      return gone ? { ok: false, gone: true, reason: `Stream name '${name}'${pinned}: ${gone}.` } : c;
    },
  });
}

export interface FrameMigrations {
  /** Why a stream template is refused at this release (the upstream no longer has it), or undefined. */
  streamRefusal(stream: Stream): string | undefined;
  /** [user data] Signing mode: websocket-API methods a bridge answers (name → its action), and stream templates a bridge feeds. */
  bridged: { methods: ReadonlyMap<string, string>; streams: ReadonlySet<string> };
  /**
   * The inspect of a websocket-API connection (replacing the plain catalogue check), and the
   * inspect of its answers when some method's answers come back migrated. null: no method of this
   * release changes on the way up.
   */
  wsApi(checker: WsApiChecker, served: (facts: ApiRequestFacts) => void, charge: FrameCharge | undefined): { up: Inspect; down?: DownInspect } | null;
}

/** An upstream frame in, the frame the client gets (undefined: as it came). */
export type DownInspect = (data: Buffer, isBinary: boolean) => string | undefined;

export interface FrameMigrationOptions {
  /** The release each versioned service's upstream speaks (the program's; absent: nothing migrates). */
  upstreamRelease?: ReadonlyMap<string, string>;
  /** Signing mode: the gateway's key for the websocket API. */
  signing?: WsSigning;
  ajv: Ajv;
  strict: boolean;
  /** Told once per connection and method what a migration does (the frames have no access line of their own). */
  logger?: Pick<Logger, 'info'>;
}

/** A pending answer's key: a request id as written ("n:9007199254740993", "s:abc"); a string and a number stay apart. */
const keyOf = (id: Id): string | null => (id === null ? null : typeof id === 'string' ? `s:${id}` : `n:${String(id)}`);

/** The migrations of one served release's view, or null when nothing of its websockets changes. */
export function frameMigrations(view: ReleaseView, o: FrameMigrationOptions): FrameMigrations | null {
  const service = view.service;
  const upstreamId = o.upstreamRelease?.get(service.id);
  if (upstreamId === undefined || !service.versioned) return null;
  const u = upstreamIndex(service, upstreamId);
  if (view.at >= u) return null;
  const methods = new Map<string, MethodPlan>();
  const signing = o.signing?.service === service.id ? o.signing : undefined;
  for (const m of view.wsMethods) {
    const plan = composePlan(service, `${WS_API}${m.name}`, view.at, u);
    if (plan) methods.set(m.name, compileMethodPlan(plan, signing !== undefined));
  }
  const streams = new Map<string, string>();
  const bridged = { methods: new Map<string, string>(), streams: new Set<string>() };
  for (const [name, mp] of methods) if (mp.plan.bridge && mp.refusal === null) bridged.methods.set(name, mp.plan.bridge.action);
  for (const s of view.streams) {
    const plan = composePlan(service, `${STREAM}${s.name}`, view.at, u);
    if (plan?.refuse) streams.set(s.name, `the upstream (which speaks ${plan.upstreamRelease}) no longer has stream ${s.name} since ${plan.refuse.release}: ${plan.refuse.reason}${useInstead(plan.refuse.replacement)}`);
    else if (plan?.bridge && !signing) streams.set(s.name, `the upstream (which speaks ${plan.upstreamRelease}) no longer has stream ${s.name} since ${plan.bridge.release}; the gateway feeds it (${plan.bridge.name}) only in signing mode, and it holds no key${useInstead(plan.bridge.replacement)}`);
    else if (plan?.bridge) bridged.streams.add(s.name);
  }
  if (!methods.size && !streams.size) return null;
  let head: WsApiChecker | undefined;
  const plans: MethodPlans = {
    service, u, methods, signing, logger: o.logger,
    head: () => {
      if (!head) {
        head = new WsApiChecker(resolveServiceAt(service, u), o.ajv, o.strict);
        supplyParams(head, signing);
      }
      return head;
    },
  };
  const answers = [...methods.values()].some((m) => m.answer);
  return {
    streamRefusal: (stream) => streams.get(stream.name),
    bridged,
    wsApi(checker, served, charge) {
      if (!methods.size) return null;
      const pending = new Map<string, readonly AnswerStep[]>();
      return { up: migratingInspect(plans, checker, served, charge, pending), down: answers ? answersDown(pending) : undefined };
    },
  };
}

/** What the frames of one served release are carried by, shared by its connections. */
interface MethodPlans {
  service: Service;
  /** Position of the upstream's release. */
  u: number;
  methods: ReadonlyMap<string, MethodPlan>;
  signing: WsSigning | undefined;
  logger: Pick<Logger, 'info'> | undefined;
  /** The checker of the upstream's release, made on first use. */
  head(): WsApiChecker;
}

/** A connection's request frames: checked at its release, then those of a method with a plan carried up it. */
function migratingInspect(p: MethodPlans, checker: WsApiChecker, served: (facts: ApiRequestFacts) => void, charge: FrameCharge | undefined, pending: Map<string, readonly AnswerStep[]>): Inspect {
  const told = new Set<string>();
  return (data) => {
    let called: WsMethod | undefined;
    const verdict = checker.check(data, (f) => { called = f.method; served(f); }, charge);
    if (verdict !== undefined || !called) return verdict;
    const mp = p.methods.get(called.name);
    if (!mp) return undefined;
    const req = readFrame(data) as Record<string, unknown>; // the checker read it already: an object, each key once
    const id = idOf(req.id);
    try {
      const params = migrateUp(mp, isJsonObject(req.params) ? { ...req.params } : {}, p.signing);
      // Written again with every value the plan does not change as the client wrote it (exact-json.ts).
      const frame = writeJson({ ...req, method: mp.plan.path, params });
      // Validated again where it is going: the target method at the upstream's release.
      const invalid = p.head().check(Buffer.from(frame, 'utf8'));
      if (invalid !== undefined) return invalid;
      const signed = p.signing ? signAsTarget(p.service, p.u, mp.plan.path, params, p.signing) : params;
      const key = keyOf(id);
      if (mp.answer && key !== null) {
        if (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value as string);
        pending.set(key, mp.answer);
      }
      if (!told.has(called.name)) {
        told.add(called.name);
        p.logger?.info(`ws-api ${called.name} at ${mp.plan.release}: migrated to ${mp.plan.path} at ${mp.plan.upstreamRelease} (${mp.header})`);
      }
      return { forward: signed === params ? frame : writeJson({ ...req, method: mp.plan.path, params: signed }) };
    } catch (e) {
      if (!(e instanceof GatewayError)) throw e;
      return writeJson({ id, status: e.status, error: envelope(p.service, e.reason, e.message) });
    }
  };
}

/**
 * The answers of migrated requests, by request id, carried down their plan's answer steps; every
 * value the steps do not change keeps the upstream's text (an order id 9007199254740993 included).
 */
function answersDown(pending: Map<string, readonly AnswerStep[]>): DownInspect {
  return (data, isBinary) => {
    if (isBinary || !pending.size) return undefined;
    let frame: unknown;
    try { frame = readJson(data.toString('utf8'), { duplicates: 'last' }); } catch { return undefined; }
    if (!isJsonObject(frame)) return undefined;
    const key = keyOf(idOf(frame.id));
    const steps = key === null ? undefined : pending.get(key);
    if (!steps) return undefined;
    pending.delete(key!);
    const status = typeof frame.status === 'number' ? frame.status : 200;
    if (status >= 400) frame.error = applyAnswer(steps, status, frame.error).data;
    else frame.result = applyAnswer(steps, status, frame.result).data;
    return writeJson(frame);
  };
}

function compileMethodPlan(plan: Plan, holdsKey: boolean): MethodPlan {
  return { plan, ...decide(plan, holdsKey, { operation: plan.operation.slice(WS_API.length), target: plan.path, signed: "params the frame's signature covers" }) };
}

/** The params of a checked frame carried up a method's plan; a refusal is thrown as a GatewayError. */
function migrateUp(mp: MethodPlan, params: Record<string, unknown>, signing: WsSigning | undefined): Record<string, unknown> {
  const { plan } = mp;
  const name = plan.operation.slice(WS_API.length);
  if (mp.refusal !== null) throw new GatewayError('gone', mp.refusal);
  // Only the gateway's bridge answers a bridged method (frame-signing.ts); never forwarded as anything else.
  if (plan.bridge) throw new GatewayError('gone', `${name} was removed in ${plan.bridge.release}; the gateway's ${plan.bridge.name} bridge is not available on this connection${useInstead(plan.bridge.replacement)}`);
  const guarded = guardRefusal(mp.guards, params, name);
  if (guarded) throw guarded;
  if (!plan.request.length) return params;
  if (params.signature !== undefined) {
    // The client signed the params the plan is about to change: only a gateway holding the key can carry it.
    if (mp.refuseChanged !== null) throw new GatewayError('gone', mp.refuseChanged);
    if (signing && !verifyWsSignature(signing, params)) {
      throw new GatewayError('badSignature', `Signature for this request is not valid (${name} at ${plan.release}): the gateway verifies a signed frame before migrating it`);
    }
    delete params.signature; // signed again with the client's timestamp and recvWindow
  } else if (mp.refuseChanged !== null && plan.security.from === 'SIGNED') {
    throw new GatewayError('gone', mp.refuseChanged);
  }
  return applyParts(params, plan.request, `${name} → ${plan.path}`);
}

/** The request parts of a plan on the params (the one applier, changes/apply.ts); a refusal becomes the frame's error. */
function applyParts(params: Record<string, unknown>, parts: readonly RequestPart[], label: string): Record<string, unknown> {
  try {
    return applyRequest(params, parts);
  } catch (e) {
    if (e instanceof StepRefusal) throw new GatewayError(e.gone ? 'gone' : 'invalid', `${label}: ${e.message}`);
    throw e;
  }
}

/** The client's signature over the frame's params as sent, checked by signing them again (the exchange's schemes are deterministic). */
function verifyWsSignature(signing: WsSigning, params: Readonly<Record<string, unknown>>): boolean {
  return typeof params.signature === 'string' && signatureMatches(signing.signer, wsSignaturePayload(params), params.signature);
}

/** Signing mode: the migrated params signed (or given the key) as the target method's security at the upstream's release asks. */
function signAsTarget(service: Service, u: number, method: string, params: Record<string, unknown>, signing: WsSigning): Record<string, unknown> {
  const m = service.wsMethods.find((x) => x.name === method && x.span.added <= u && (x.span.removed === null || x.span.removed > u));
  const security = m ? currentAt(m.security, u)?.scheme ?? 'NONE' : 'NONE';
  const apiKey = signing.apiKey.reveal();
  if (security === 'SIGNED' && params.signature === undefined) return signWsParams(params, signing.signer, { apiKey, now: (signing.clock ?? Date.now)(), recvWindow: signing.recvWindow });
  if (security === 'API_KEY' && params.apiKey === undefined) return { ...params, apiKey };
  return params;
}
