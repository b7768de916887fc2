// The AsyncAPI 3.0 export: valid for @asyncapi/parser (and a broken copy is not), every stream
// template with typed placeholders, the SUBSCRIBE / UNSUBSCRIBE protocol, every websocket-API method
// with its parameters, and `npm run catalogue -- asyncapi`. The routes and frames it describes are
// checked against the gateway's own websocket code, which this export may not import.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { currentAt, existsAt } from '../../src/catalogue/lifecycle.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { resolveService } from '../../src/catalogue/resolve.js';
import { SUBSCRIPTION_METHODS, toAsyncApi } from '../../src/catalogue/to-asyncapi.js';
import { checkStreamFrame } from '../../src/gateway/websocket/frames.js';
import { routeOf } from '../../src/gateway/websocket/routes.js';
import { StreamMatcher } from '../../src/gateway/websocket/stream-names.js';
import { asyncApiErrors } from '../../tools/export-checks.js';
import { runTool } from '../support/tools.js';

type Json = Record<string, any>;
const test = suite('asyncapi export');
const { catalogue } = loadCatalogue();
const exchange = catalogue.services.find((s) => s.id === 'exchange')!;
const PIN = '3.12.0';
const view = resolveService(exchange, PIN);
const doc = toAsyncApi([view]) as Json;
/** The catalogue's websocket paths, which the gateway routes. */
const PATHS = { ...exchange.streamPaths, wsApi: exchange.wsApiPath };
/** Values for the placeholders typed by a pattern (enum placeholders take their first value). */
const SAMPLES: Record<string, string> = { symbol: 'btcusdt', listenKey: 'A1'.repeat(30) };

test('@asyncapi/parser finds no error at the pin (other releases: test/soak/exports.soak.ts); it does in a broken copy', async () => {
  for (const r of [PIN]) {
    const errors = await asyncApiErrors(toAsyncApi([resolveService(exchange, r)]));
    assert.equal(errors, [], `at ${r}`);
  }
  // The broken copy keeps one operation (the parser's work grows with the document; one dangling
  // reference is found the same in a document of one operation as of all).
  const broken = structuredClone(doc);
  const [first] = Object.keys(broken.operations);
  broken.operations = { [first]: broken.operations[first] };
  broken.operations[first].channel = { $ref: '#/channels/no-such-channel' };
  const errors = await asyncApiErrors(broken);
  assert.ok(errors.some((e) => /no-such-channel/.test(e)), `the dangling channel reference is not reported: ${errors.join('; ')}`);
  assert.is(doc.asyncapi, '3.0.0');
});

test('every stream template alive at the pin is a channel with typed placeholders the gateway accepts', () => {
  const matcher = new StreamMatcher(view);
  const channels = Object.values(doc.channels as Json).filter((c: Json) => c.messages?.event);
  assert.equal(channels.map((c: Json) => c.title).sort(), view.streams.map((s) => s.name).sort());
  for (const c of channels) {
    const names = [...c.title.matchAll(/<([^<>]+)>/g)].map((m) => m[1]);
    assert.equal(Object.keys(c.parameters ?? {}).sort(), [...names].sort(), c.title);
    let concrete = c.address as string;
    for (const n of names) {
      const type = exchange.placeholders[n];
      const param = c.parameters[n];
      if (type.enum) assert.equal(param.enum, view.enumValues(type.enum).map((v) => v.value), `${c.title} <${n}>`);
      else assert.is(param['x-pattern'], type.pattern, `${c.title} <${n}>`);
      concrete = concrete.replace(`{${n}}`, type.enum ? param.enum[0] : SAMPLES[n]);
    }
    const route = routeOf(concrete, PATHS);
    assert.is(route.kind, 'streams', concrete);
    if (route.kind !== 'streams') continue;
    assert.is(route.names.length, 1, concrete);
    const check = matcher.check(route.names[0]);
    assert.ok(check.ok && check.stream.name === c.title, `${concrete}: the gateway matched ${check.ok ? check.stream.name : check.reason}`);
  }
  assert.is(routeOf(`${PATHS.combined}?streams=a/b`, PATHS).kind, 'streams');
  assert.is(routeOf(PATHS.wsApi!, PATHS).kind, 'wsApi');
  assert.match(doc.info.description, /connect to `\/ws\/<stream>\[\/<stream>…\]`.*`\/stream\?streams=<a>\/<b>`/s);
});

test('SUBSCRIBE / UNSUBSCRIBE: the frames the gateway checks, and the code it refuses them with', () => {
  const matcher = new StreamMatcher(view);
  const channel = doc.channels['stream-subscriptions'];
  const code = channel.messages.error.payload.properties.error.properties.code.const;
  assert.is(code, exchange.errors.codes.streamInvalid);
  for (const method of SUBSCRIPTION_METHODS) {
    const op = doc.operations[method.toLowerCase()];
    assert.is(op.action, 'send');
    assert.is(channel.messages[method].payload.properties.method.const, method);
    const refusal = checkStreamFrame(matcher, Buffer.from(JSON.stringify({ method, params: ['nosuchstream@x'], id: 7 })));
    assert.ok(refusal, `${method} with an unknown stream was not refused`);
    assert.equal(JSON.parse(refusal!).error.code, code);
    assert.is(checkStreamFrame(matcher, Buffer.from(JSON.stringify({ method, params: ['btcusdt@trade'], id: 8 }))), undefined, `${method} of a served stream`);
  }
});

test('every websocket-API method at the pin is a send operation with its parameters and a reply', () => {
  const channel = doc.channels['ws-api'];
  assert.is(channel.address, '/ws-api/v3', 'the catalogue\'s path (ws-api.yaml)');
  const ops = Object.values(doc.operations as Json).filter((o: Json) => o.channel.$ref === '#/channels/ws-api');
  assert.equal(ops.map((o: Json) => o.title).sort(), view.wsMethods.map((m) => m.name).sort());
  for (const m of view.wsMethods) {
    const op = ops.find((o: Json) => o.title === m.name)!;
    const message = channel.messages[op.messages[0].$ref.split('/').pop()];
    assert.is(message.payload.properties.method.const, m.name);
    const alive = m.parameters.filter((p) => existsAt(p.span, view.at));
    assert.equal(Object.keys(message.payload.properties.params.properties).sort(), alive.map((p) => p.name).sort(), m.name);
    assert.equal(message.payload.properties.params.required ?? [], alive.filter((p) => p.required).map((p) => p.name), m.name);
    for (const p of alive.filter((x) => x.enum)) {
      const schema = message.payload.properties.params.properties[p.name];
      assert.equal(schema.enum ?? schema.items?.enum, view.enumValues(p.enum!).map((v) => v.value), `${m.name} ${p.name}`);
    }
    assert.is(op['x-security'], currentAt(m.security, view.at)?.scheme ?? 'NONE');
    assert.ok(op.reply.messages.length > 0);
  }
});

test('npm run catalogue -- asyncapi prints the document at the release', () => {
  const r = runTool('catalogue', ['asyncapi', '--release', '3.6.0']);
  assert.is(r.status, 0, r.stderr);
  const printed = JSON.parse(r.stdout) as Json;
  assert.is(printed.asyncapi, '3.0.0');
  assert.is(printed.info.version, '3.6.0');
  assert.equal(printed, toAsyncApi([resolveService(exchange, '3.6.0'), resolveService(catalogue.services.find((s) => s.id === 'tx-examples')!)]));
});

test.run();
