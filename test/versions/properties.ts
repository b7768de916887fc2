// The generated proof of version changes, shared by the bounded test (npm test) and the soak
// (npm run test:soak): from the catalogue alone, for every operation some change bridges and every
// release where it is alive below the upstream's, fast-check generates requests valid at that
// release (each enum value alive there, required and optional parameters in any combination),
// migrates them with the gateway's own stage, and checks them valid at the upstream's release; and
// generates answers in the newest shape and checks the migrated-down answer is the old one's shape.
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import * as assert from '../support/assert.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { currentAt, existsAt } from '../../src/catalogue/lifecycle.js';
import type { Parameter, Service, WsMethod } from '../../src/catalogue/model.js';
import { upstreamIndex } from '../../src/catalogue/changes/lookup.js';
import { WS_API } from '../../src/catalogue/changes/ws-operations.js';
import { supplyParams } from '../../src/gateway/websocket/frame-signing.js';
import { WsApiChecker } from '../../src/gateway/websocket/frames.js';
import { frameMigrations } from '../../src/gateway/websocket/migrate-frames.js';
import { Secret } from '../../src/upstream/signing/secret.js';
import { wsSignaturePayload } from '../../src/upstream/signing/ws-api-params.js';
import type { Inspect } from '../../src/upstream/ws-relay.js';
import { resolveServiceAt } from '../../src/catalogue/resolve.js';
import { createBodyAjv, createParamAjv } from '../../src/catalogue/validators.js';
import { compileMigrations, type CompiledPlan } from '../../src/gateway/migrate/compile.js';
import { migrateAnswer } from '../../src/gateway/migrate/answer.js';
import { migrateRequest } from '../../src/gateway/migrate/stage.js';
import type { RequestState } from '../../src/gateway/request-state.js';
import { GatewayError } from '../../src/gateway/errors.js';
import { buildRouteTable, type Route } from '../../src/gateway/routes/route-table.js';
import { checkParams } from '../../src/gateway/params/validate-params.js';
import { hmacSigner } from '../../src/upstream/signing/signers.js';

export interface Case {
  service: Service;
  release: string;
  route: Route;
  plan: CompiledPlan;
}

/** Every (bridged operation, release where it is alive) pair of the catalogue, with its compiled plan. */
export function bridgedCases(): Case[] {
  const { catalogue } = loadCatalogue();
  const out: Case[] = [];
  for (const service of catalogue.services.filter((s) => s.versioned && s.changes.changes.length)) {
    // A bridge answers its operation in the gateway (nothing migrates upstream): test/user-data covers those.
    const bridged = new Set(service.changes.changes.filter((c) => !c.request.some((x) => x.kind === 'bridge')).map((c) => c.operation));
    const views = service.releases.map((_, at) => resolveServiceAt(service, at));
    const migrations = compileMigrations(views, { signers: new Map([[service.id, hmacSigner('property-test-secret')]]) })!;
    for (const view of views) {
      const table = buildRouteTable([view]);
      for (const key of bridged) {
        const route = table.byKey(key);
        const plan = route && migrations.planOf(route);
        if (route && plan && !plan.refusal) out.push({ service, release: view.release!.id, route, plan });
      }
    }
  }
  return out;
}

const WORDS = ['BTC', 'USDT', 'BNBUSDT', 'SPOT', 'ISOLATED_MARGIN', 'MARGIN', 'a'];

/** A text value valid for one parameter at a release. */
function valueOf(service: Service, p: Parameter, at: number): fc.Arbitrary<string> {
  const values = p.enum ? service.enums[p.enum].values.filter((v) => existsAt(v.span, at)).map((v) => v.value) : (p.schema.enum as unknown[] | undefined)?.map(String);
  if (values?.length) return fc.constantFrom(...values);
  switch (p.schema.type) {
    case 'integer': return fc.integer({ min: 1, max: 10_000 }).map(String);
    case 'number': return fc.integer({ min: 1, max: 1_000_000 }).map((n) => String(n / 100));
    case 'boolean': return fc.constantFrom('true', 'false');
    case 'array': return fc.constantFrom(...WORDS.slice(0, 3));
    default: return fc.constantFrom(...WORDS);
  }
}

/** Requests valid at the case's release: its own parameters (not the signing ones), required always, optional maybe. */
function requests(c: Case): fc.Arbitrary<[string, string][]> {
  const at = c.route.view.at;
  const own = c.route.endpoint.parameters.filter((p) => c.route.endpoint.endpoint.parameters.includes(p) && p.in === 'query');
  const fields = own.map((p) => (p.required ? valueOf(c.service, p, at).map((v) => [p.name, v] as [string, string])
    : fc.option(valueOf(c.service, p, at).map((v) => [p.name, v] as [string, string]), { nil: undefined })));
  return fc.tuple(...fields).map((pairs) => pairs.filter((x): x is [string, string] => x !== undefined));
}

const ajv = createParamAjv();
const bodyAjv = createBodyAjv();

/** Run the property for one case: valid at its release ⇒ valid at the upstream's after migration (or refused with a reason). */
export function checkRequests(c: Case, numRuns: number): number {
  let migrated = 0;
  fc.assert(fc.property(requests(c), (pairs) => {
    const query = `${pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}${pairs.length ? '&' : ''}timestamp=1700000000000`;
    const params: Record<string, string> = Object.fromEntries(pairs);
    try {
      checkParams(ajv, c.route.params, { ...params, timestamp: '1700000000000' }, {}, { strict: true, supplied: new Set(['signature']) });
    } catch {
      return true; // a combination the release itself refuses (e.g. exclusive parameters): nothing to migrate
    }
    const state: RequestState = {
      route: c.route, url: `${c.route.endpoint.endpoint.path}?${query}`, headers: {}, body: Buffer.alloc(0), supplied: new Set(['signature']),
      drop: new Set(), own: {}, params,
    };
    try {
      migrateRequest({ paramAjv: ajv, bodyAjv, strict: true }, state, c.plan);
    } catch (e) {
      // Refused with a reason the plan states: a value the catalogue declares unbridgeable, or one a transform cannot carry.
      if (!(e instanceof GatewayError)) throw e;
      const guarded = c.plan.guards.some((g) => g.values === null ? params[g.parameter] !== undefined : g.values.has(params[g.parameter]));
      const transformed = c.plan.plan.request.some((p) => p.kind === 'transform') && e.reason === 'invalid' && / → /.test(e.message);
      assert.ok(guarded || transformed, `${c.route.endpoint.endpoint.key} at ${c.release}: ${query} → ${e.status} ${e.message}`);
      return true;
    }
    migrated++;
    // Independently of the stage: the migrated request, read back from its URL, is valid at the upstream's release.
    const sent = Object.fromEntries(new URLSearchParams(state.url.slice(state.url.indexOf('?') + 1)));
    assert.is(state.url.split('?')[0], c.plan.plan.path);
    checkParams(ajv, c.plan.target.params, sent, {}, { strict: true, supplied: new Set(['signature']) });
    assert.is(state.own['x-gateway-migrated'], c.plan.header);
    return true;
  }), { numRuns, seed: Number(process.env.PROPERTY_SEED ?? 42) });
  return migrated;
}

/** Answers in the newest shape, and what the old release promised for the ones a plan rewrites. */
export function checkAnswers(c: Case, numRuns: number): void {
  const steps = c.plan.answer;
  if (!steps) return;
  const item = fc.dictionary(fc.constantFrom('symbol', 'asset', 'base', 'quote', 'isBorrowable'), fc.oneof(fc.string(), fc.boolean()), { minKeys: 1 });
  const row = fc.record({ amount: fc.integer().map(String), asset: fc.constantFrom('BTC', 'USDT'), type: fc.constantFrom('ROLL_IN', 'ROLL_OUT'), txId: fc.integer() });
  fc.assert(fc.property(item, fc.array(row), (one, rows) => {
    for (const s of steps) {
      if (s.kind === 'unwrap') {
        const out = JSON.parse(migrateAnswer(steps, 200, Buffer.from(JSON.stringify([one]))).body!.toString());
        assert.equal(out, JSON.parse(JSON.stringify(one)), 'a one-item list comes back as the object the old endpoint answered');
      }
      if (s.kind === 'transform' && s.name === 'rollTypeToDirection') {
        const out = JSON.parse(migrateAnswer(steps, 200, Buffer.from(JSON.stringify({ rows, total: rows.length }))).body!.toString()) as { rows: Record<string, string>[] };
        for (const [i, r] of out.rows.entries()) {
          assert.equal([r.transFrom, r.transTo], rows[i].type === 'ROLL_IN' ? ['SPOT', 'ISOLATED_MARGIN'] : ['ISOLATED_MARGIN', 'SPOT']);
        }
      }
    }
    const error = { code: -1130, msg: 'x' };
    assert.equal(JSON.parse(migrateAnswer(steps, 400, Buffer.from(JSON.stringify(error))).body!.toString()).msg, 'x', 'an error answer keeps its message');
    return true;
  }), { numRuns, seed: Number(process.env.PROPERTY_SEED ?? 42) });
}

/** A websocket-API method some change bridges, at a release where it is alive, with the connection's migrations. */
export interface WsCase {
  service: Service;
  release: string;
  method: WsMethod;
  checker: WsApiChecker;
  up: Inspect;
  head: WsApiChecker;
}

const WS_SECRET = 'property-test-ws-secret';

/** Every (bridged websocket-API method, release where it is alive) pair, migrated as a signing-mode connection would. */
export function wsBridgedCases(): WsCase[] {
  const { catalogue } = loadCatalogue();
  const out: WsCase[] = [];
  for (const service of catalogue.services.filter((s) => s.versioned && s.changes.changes.some((c) => c.operation.startsWith(WS_API)))) {
    const bridged = new Set(service.changes.changes.filter((c) => c.operation.startsWith(WS_API) && !c.request.some((x) => x.kind === 'bridge')).map((c) => c.operation.slice(WS_API.length)));
    const u = upstreamIndex(service);
    const signing = { service: service.id, apiKey: new Secret('property-key'), signer: hmacSigner(WS_SECRET) };
    const head = new WsApiChecker(resolveServiceAt(service, u), ajv, true);
    for (let at = 0; at < u; at++) {
      const view = resolveServiceAt(service, at);
      const m = frameMigrations(view, { upstreamRelease: new Map([[service.id, service.releases[u].id]]), signing, ajv, strict: true });
      // A method is carried from `at` only if one of its changes lies after it (a later release's client needs none).
      const after = new Set(service.changes.changes.filter((c) => c.operation.startsWith(WS_API) && service.releases.findIndex((r) => r.id === c.release) > at)
        .map((c) => c.operation.slice(WS_API.length)));
      for (const method of view.wsMethods.filter((x) => bridged.has(x.name) && after.has(x.name))) {
        const checker = new WsApiChecker(view, ajv, true);
        supplyParams(checker, signing);
        const up = m?.wsApi(checker, () => {}, undefined)?.up;
        if (up) out.push({ service, release: view.release!.id, method, checker, up, head });
      }
    }
  }
  return out;
}

/** JSON params valid at the case's release (the signing ones left to the gateway): required always, optional maybe. */
function wsParams(c: WsCase): fc.Arbitrary<Record<string, unknown>> {
  const at = c.checker.view.at;
  const signing = new Set(['apiKey', 'timestamp', 'signature']);
  const own = c.method.parameters.filter((p) => existsAt(p.span, at) && !signing.has(p.name));
  const fields = own.map((p) => (p.required ? wsValueOf(c.service, p, at).map((v) => [p.name, v] as [string, unknown])
    : fc.option(wsValueOf(c.service, p, at).map((v) => [p.name, v] as [string, unknown]), { nil: undefined })));
  return fc.tuple(...fields).map((pairs) => Object.fromEntries(pairs.filter((x): x is [string, unknown] => x !== undefined)));
}

/** A JSON value valid for one websocket-API param: decimals as numbers or text, integers from the schema's minimum. */
function wsValueOf(service: Service, p: Parameter, at: number): fc.Arbitrary<unknown> {
  const types = ([] as unknown[]).concat(p.schema.type ?? 'string');
  if (p.enum || p.schema.enum) return valueOf(service, p, at);
  const min = typeof p.schema.minimum === 'number' ? p.schema.minimum : 1;
  if (types.includes('integer')) return fc.integer({ min, max: min + 10_000 });
  if (types.includes('number')) return fc.integer({ min: 1, max: 1_000_000 }).chain((n) => fc.constantFrom<unknown>(n / 100, String(n / 100)));
  return valueOf(service, p, at);
}

/** Valid at its release ⇒ forwarded as a frame valid at the upstream's release, signed so that the upstream's check passes (or refused with a reason). */
export function checkWsFrames(c: WsCase, numRuns: number): number {
  let migrated = 0;
  fc.assert(fc.property(wsParams(c), (params) => {
    const frame = Buffer.from(JSON.stringify({ id: 1, method: c.method.name, params }));
    if (c.checker.check(frame) !== undefined) return true; // a combination the release itself refuses
    const out = c.up(frame, false);
    if (typeof out === 'string') {
      // Refused with a reason: a value a transform cannot carry (400 naming the way it would go).
      const answer = JSON.parse(out) as { status: number; error: { msg: string } };
      assert.ok(answer.status === 400 && / → /.test(answer.error.msg), `${c.method.name} at ${c.release}: ${JSON.stringify(params)} → ${out}`);
      return true;
    }
    assert.ok(out, `${c.method.name} at ${c.release}: forwarded unmigrated`);
    migrated++;
    const sent = JSON.parse(String(out!.forward)) as { id: number; method: string; params: Record<string, unknown> };
    assert.is(sent.id, 1);
    // Independently of the relay: valid at the upstream's release, and signed as the exchange checks it.
    assert.is(c.head.check(Buffer.from(String(out!.forward))), undefined, String(out!.forward));
    const { signature, ...rest } = sent.params;
    // Signed where the upstream's release wants a signature; a method that stopped taking one is sent without.
    const signed = currentAt(c.method.security, c.head.view.at)?.scheme === 'SIGNED';
    if (signed) assert.is(signature, createHmac('sha256', WS_SECRET).update(wsSignaturePayload(rest)).digest('hex'));
    else assert.equal([signature, rest.apiKey], [undefined, undefined], String(out!.forward));
    return true;
  }), { numRuns, seed: Number(process.env.PROPERTY_SEED ?? 42) });
  return migrated;
}
