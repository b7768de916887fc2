// The migrate stage alone, in this process, on a program serving 3.5.1 and 3.12.0 with an HMAC key:
//   no change  GET /api/v3/klines at 3.12.0: the stage's whole cost is the plan lookup (null);
//   migrated   POST /sapi/v1/margin/loan at 3.5.1 → borrow-repay (query rewritten, validated again at
//              3.12.0), and GET /sapi/v1/margin/asset → allAssets (path moved; answer unwrapped).
//   npm run build && node dist/bench/migrate.js [calls-per-round]
import { loadCatalogue } from '../src/catalogue/load.js';
import { findService, resolveService } from '../src/catalogue/resolve.js';
import { checkParameters, type RequestState } from '../src/gateway/pipeline.js';
import { compileProgram } from '../src/gateway/program/program.js';
import { migrateAnswer } from '../src/gateway/migrate/answer.js';
import { migrateRequest } from '../src/gateway/migrate/stage.js';
import type { Admission } from '../src/gateway/admission/admission.js';
import type { UpstreamProxy } from '../src/upstream/proxy.js';
import { hmacSigner } from '../src/upstream/signing/signers.js';
import { createParamAjv } from '../src/catalogue/validators.js';
import { supplyParams } from '../src/gateway/websocket/frame-signing.js';
import { WsApiChecker } from '../src/gateway/websocket/frames.js';
import { frameMigrations } from '../src/gateway/websocket/migrate-frames.js';
import { Secret } from '../src/upstream/signing/secret.js';
import { signWsParams } from '../src/upstream/signing/ws-api-params.js';
import { nsPerCall } from './ns-per-call.js';

const N = Number(process.argv[2] ?? 200_000);

const exchange = findService(loadCatalogue().catalogue, 'exchange');
const program = (release: string) => compileProgram({
  views: [resolveService(exchange, release)], plugins: new Map(), upstreams: {}, hooks: [], strict: false,
  bodyLimit: 1 << 20, corsOrigins: [], credentialed: new Set(), allowedHosts: [], admission: undefined as unknown as Admission, proxy: undefined as unknown as UpstreamProxy,
  signers: new Map([['exchange', hmacSigner('bench-secret')]]),
});
const now = program('3.12.0');
const old = program('3.5.1');
const EMPTY = Buffer.alloc(0);
const NONE: ReadonlySet<string> = new Set(['timestamp', 'signature']);
const headers = { host: '127.0.0.1' };

const bench = (label: string, once: () => unknown) => nsPerCall(label, N, once);

const request = (p: typeof now, key: string, query: string) => {
  const route = p.table.byKey(key)!;
  return () => {
    const state: RequestState = { route, url: `${route.endpoint.endpoint.path}?${query}`, headers, body: EMPTY, supplied: NONE, drop: NONE, own: {}, params: {} };
    checkParameters(p, state, query);
    const plan = p.migrate!.planOf(route);
    if (plan !== null) migrateRequest(p, state, plan);
    return state;
  };
};

const klines = request(now, 'GET /api/v3/klines', 'symbol=BTCUSDT&interval=1m&limit=10');
const loan = request(old, 'POST /sapi/v1/margin/loan', `asset=BTC&amount=1.5&timestamp=${Date.now()}`);
const asset = request(old, 'GET /sapi/v1/margin/asset', 'asset=BTC');
if (!loan().url.includes('type=BORROW')) throw new Error('not migrated');
const klinesRoute = now.table.byKey('GET /api/v3/klines')!;
const paramsOnly = () => {
  const state: RequestState = { route: klinesRoute, url: '/api/v3/klines?symbol=BTCUSDT&interval=1m&limit=10', headers, body: EMPTY, supplied: NONE, drop: NONE, own: {}, params: {} };
  checkParameters(now, state, 'symbol=BTCUSDT&interval=1m&limit=10');
};
const ref = bench('parameters only, GET /api/v3/klines at 3.12.0 (the stage before migrate, for reference)', paramsOnly);
const base = bench('parameters + migrate, GET /api/v3/klines at 3.12.0 (no change)', klines);
console.log(`no change: the migrate stage adds ${(base - ref).toFixed(0)} ns, ×${(base / ref).toFixed(3)} of the parameters stage alone (the plan lookup; within this run's noise if near 0)`);
const l = bench('parameters + migrate, POST /sapi/v1/margin/loan at 3.5.1 → borrow-repay', loan);
const a = bench('parameters + migrate, GET /sapi/v1/margin/asset at 3.5.1 → allAssets', asset);
const answer = Buffer.from(JSON.stringify([{ assetFullName: 'Bitcoin', assetName: 'BTC', isBorrowable: true, isMortgageable: true, userMinBorrow: '0', userMinRepay: '0' }]));
const steps = old.migrate!.planOf(old.table.byKey('GET /sapi/v1/margin/asset')!)!.answer!;
const u = bench('answer unwrap (JSON parse + rewrite), GET /sapi/v1/margin/asset', () => migrateAnswer(steps, 200, answer));
console.log(`added by migration: margin loan +${(l - base).toFixed(0)} ns, margin asset +${(a - base + u).toFixed(0)} ns with its answer (against klines' parameters stage, ${base.toFixed(0)} ns)`);

// Websockets: a signing-mode connection at 3.5.1 placing an OCO. The frame check alone (what a
// connection at the upstream's release pays) against the relay's migration of orderList.place →
// orderList.place.oco (checked, transformed, checked again at 3.12.0, signed).
const ajv = createParamAjv();
const signing = { service: 'exchange', apiKey: new Secret('bench-key'), signer: hmacSigner('bench-secret') };
const wsView = resolveService(exchange, '3.5.1');
const checker = new WsApiChecker(wsView, ajv, false);
supplyParams(checker, signing);
const ws = frameMigrations(wsView, { upstreamRelease: new Map([['exchange', '3.12.0']]), signing, ajv, strict: false })!.wsApi(checker, () => {}, undefined)!.up;
const oco = Buffer.from(JSON.stringify({ id: 'b', method: 'orderList.place', params: { symbol: 'BTCUSDT', side: 'SELL', quantity: '0.5', price: '70000', stopPrice: '60000', stopLimitPrice: '59900', stopLimitTimeInForce: 'GTC' } }));
const order = Buffer.from(JSON.stringify({ id: 'o', method: 'order.status', params: { symbol: 'BTCUSDT', orderId: 1 } }));
if (typeof ws(oco, false) !== 'object') throw new Error('frame not migrated');
const checked = bench('websocket frame check, order.status at 3.5.1 (no change)', () => checker.check(order));
const checkedOco = bench('websocket frame check alone, orderList.place at 3.5.1', () => checker.check(oco));
const migratedOco = bench('websocket frame migrated, orderList.place → orderList.place.oco, signed', () => ws(oco, false));
const ocoParams = JSON.parse(oco.toString()).params as Record<string, unknown>;
const signedOnly = bench('websocket params signed (what signing mode does to every signed frame, for reference)', () => JSON.stringify(signWsParams(ocoParams, signing.signer, { apiKey: 'bench-key', now: Date.now() })));
console.log(`websocket: a migrated OCO frame adds ${(migratedOco - checkedOco - signedOnly).toFixed(0)} ns to its check (${checkedOco.toFixed(0)} ns) and the signing any signing-mode frame pays (${signedOnly.toFixed(0)} ns); a frame of a method with no change: ${checked.toFixed(0)} ns`);
process.exit(0);
