// `npm run catalogue -- import`: three published versions of the exchange's OpenAPI description
// (binance/binance-api-swagger spot_api.yaml v1.20.1, v1.21.0, v1.22.0) imported as three releases
// into an empty folder agree with a structural comparison of the documents made here, with the diff
// tool and with the gateway; a small description covers deprecation, replacements, templated paths
// and enum values; today's method table goes into a copy of the exchange catalogue.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { resolveService } from '../../src/catalogue/resolve.js';
import { diffReleases } from '../../src/diff/index.js';
import { parseYamlData } from '../../src/catalogue/yaml-file.js';
import { cacheDirFrom } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { importRelease, type ReleaseImportReport } from '../../tools/catalogue-import/release-import.js';
import { formatReport } from '../../tools/catalogue-import/release-report.js';
import { gatewayAt } from '../support/gateway.js';
import { ROOT, startUpstream } from '../support/processes.js';
import { runTool } from '../support/tools.js';
import { shippedCopy } from './folder.js';
import { emptyCatalogue, folderBytes as snapshot } from '../helpers/import-folder.js';

const test = suite('release import');

const SPOT = [
  { id: '1.20.1', date: '2023-12-07', file: 'data/binance-api-swagger/spot_api-v1.20.1.yaml' },
  { id: '1.21.0', date: '2024-06-06', file: 'data/binance-api-swagger/spot_api-v1.21.0.yaml' },
  { id: '1.22.0', date: '2024-10-08', file: 'data/binance-spot-api-openapi-v1.22.0.yaml' },
];

// --- an independent reading of an OpenAPI document: operations, parameters, enum values, flags ---

interface ParamShape { required: boolean; type: string; values?: string[]; deprecated: boolean }
interface OpShape { deprecated: boolean; params: Map<string, ParamShape> }

function shapeOf(file: string): { ops: Map<string, OpShape>; templated: string[] } {
  // Plain data (kept parses, as every tool here reads a large YAML file): no OpenAPI reader involved.
  const doc = parseYamlData(readFileSync(join(ROOT, file), 'utf8'), cacheDirFrom(), { maxAliasCount: -1 }) as any;
  const deref = (o: any): any => (o?.$ref ? deref(o.$ref.slice(2).split('/').reduce((a: any, k: string) => a[k], doc)) : o);
  const ops = new Map<string, OpShape>();
  const templated: string[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const m of ['get', 'post', 'put', 'delete', 'patch']) {
      const op = item[m];
      if (!op) continue;
      const key = `${m.toUpperCase()} ${path}`;
      if (path.includes('{')) {
        templated.push(key);
        continue;
      }
      const own = (op.parameters ?? []).map(deref);
      const all = [...(item.parameters ?? []).map(deref).filter((p: any) => !own.some((q: any) => q.name === p.name)), ...own];
      const signing = all.some((p: any) => p.name === 'signature');
      const params = new Map<string, ParamShape>();
      for (const p of all) {
        if (p.in !== 'query' && p.in !== 'header') continue;
        if (signing && (p.name === 'signature' || p.name === 'timestamp')) continue; // the service's signing parameters
        const s = deref(p.schema) ?? {};
        const type = !s.type || s.type === 'array' || s.type === 'object' ? 'string' : s.type;
        params.set(p.name, { required: p.required === true, type, values: type === 'string' && Array.isArray(s.enum) ? s.enum.map(String) : undefined, deprecated: p.deprecated === true });
      }
      ops.set(key, { deprecated: op.deprecated === true, params });
    }
  }
  return { ops, templated };
}

type Shape = ReturnType<typeof shapeOf>;

/** What an import of `b` after `a` must report; `first`: the parameter facts the catalogue holds (from the release each parameter came in). */
function expected(a: Shape | null, b: Shape, first: Map<string, ParamShape>) {
  const out = { added: [] as string[], removed: [] as string[], deprecated: [] as string[], enumAdded: [] as string[], enumRemoved: [] as string[], differs: [] as string[] };
  const before = a?.ops ?? new Map<string, OpShape>();
  for (const [k, op] of b.ops) {
    const old = before.get(k);
    if (!old) out.added.push(k);
    if (op.deprecated && !old?.deprecated) out.deprecated.push(k);
    for (const [n, p] of op.params) {
      const item = `param ${k} ${n}`;
      const was = old?.params.get(n);
      if (old && !was) out.added.push(item);
      if (p.deprecated && !was?.deprecated) out.deprecated.push(item);
      if (!was) {
        first.set(item, p);
        continue;
      }
      for (const v of p.values ?? []) if (was.values && !was.values.includes(v)) out.enumAdded.push(`${k} ${n} ${v}`);
      for (const v of was.values ?? []) if (p.values && !p.values.includes(v)) out.enumRemoved.push(`${k} ${n} ${v}`);
      const held = first.get(item)!;
      if (held.required !== p.required || held.type !== p.type || !!held.values !== !!p.values) out.differs.push(item);
    }
    if (old) for (const n of old.params.keys()) if (!op.params.has(n)) out.removed.push(`param ${k} ${n}`);
  }
  for (const k of before.keys()) if (!b.ops.has(k)) out.removed.push(k);
  return out;
}

/** The report's `enum Name VALUE` items as "METHOD /path param VALUE", for every parameter of the catalogue using Name. */
function enumItems(serviceDir: string, items: string[], within: Shape, previous: Shape): string[] {
  const users = new Map<string, string[]>();
  // Read through the cache folder: a file the last import left as it was is not parsed again.
  for (const f of readdirSync(join(serviceDir, 'endpoints'))) {
    const { endpoints } = parseYamlData(readFileSync(join(serviceDir, 'endpoints', f), 'utf8'), cacheDirFrom()) as { endpoints: any[] };
    for (const e of endpoints) {
      for (const p of e.parameters ?? []) if (p.enum) users.set(p.enum, [...(users.get(p.enum) ?? []), `${e.method} ${e.path} ${p.name}`]);
    }
  }
  const described = (u: string) => {
    const [m, path, n] = u.split(' ');
    return within.ops.get(`${m} ${path}`)?.params.has(n) && previous.ops.get(`${m} ${path}`)?.params.has(n);
  };
  return items.filter((i) => i.startsWith('enum ')).flatMap((i) => {
    const [, name, value] = i.split(' ');
    return (users.get(name) ?? []).filter(described).map((u) => `${u} ${value}`);
  });
}

const sorted = (xs: string[]) => [...xs].sort();
const ops = (xs: string[]) => sorted(xs.filter((x) => /^[A-Z]+ \//.test(x)));
const params = (xs: string[]) => sorted(xs.filter((x) => x.startsWith('param ')));

test('three published OpenAPI versions as three releases: the reports agree with the documents, lint, the diff tool and the gateway', async () => {
  const { dir, serviceDir } = emptyCatalogue('exchange');
  const first = new Map<string, ParamShape>();
  const reports: ReleaseImportReport[] = [];
  let previous: Shape | null = null;
  for (const [i, rel] of SPOT.entries()) {
    const shape = shapeOf(rel.file);
    const report = importRelease(join(ROOT, rel.file), serviceDir, { release: rel.id, date: rel.date });
    reports.push(report);
    const want = expected(previous, shape, first);
    assert.is(report.previous, i ? SPOT[i - 1].id : null);
    assert.equal(ops(report.added), sorted(want.added.filter((x) => !x.startsWith('param '))), `${rel.id}: operations added`);
    assert.equal(params(report.added), sorted(want.added.filter((x) => x.startsWith('param '))), `${rel.id}: parameters added`);
    assert.equal(ops(report.removed), sorted(want.removed.filter((x) => !x.startsWith('param '))), `${rel.id}: operations removed`);
    assert.equal(params(report.removed), sorted(want.removed.filter((x) => x.startsWith('param '))), `${rel.id}: parameters removed`);
    assert.equal(sorted(report.deprecated), sorted(want.deprecated), `${rel.id}: deprecated`);
    if (previous) {
      assert.equal(sorted(enumItems(serviceDir, report.added, shape, previous)), sorted(want.enumAdded), `${rel.id}: enum values added`);
      assert.equal(sorted(enumItems(serviceDir, report.removed, shape, previous)), sorted(want.enumRemoved), `${rel.id}: enum values removed`);
    }
    assert.equal(sorted(report.differs.map((d) => d.split(':')[0])), sorted(want.differs), `${rel.id}: differs`);
    assert.equal(report.skipped, shape.templated.map((k) => `${k}: path template: catalogue paths are static (the gateway routes by exact path), so it is not imported`));
    assert.is(report.createdService, i === 0);
    const lint = runTool('catalogue', ['lint', '--catalogue', dir]);
    assert.is(lint.status, 0, lint.stdout + lint.stderr);
    previous = shape;
  }
  // The spot API gained and lost endpoints between these versions (v1.21.0 dropped BSwap and the old margin loans).
  assert.ok(reports[1].added.length > 30 && reports[1].removed.length > 40 && reports[2].removed.includes('POST /api/v3/order/oco'), JSON.stringify(reports[2].removed));

  // The diff tool reads the same facts back from the catalogue.
  for (const [i, report] of reports.entries()) {
    if (!i) continue;
    const run = runTool('diff-releases', [SPOT[i - 1].id, SPOT[i].id, '--catalogue', dir, '--format', 'json']);
    assert.is(run.status, 0, run.stderr);
    const changes = JSON.parse(run.stdout).changes as { id: string; endpoint: string; name?: string }[];
    const of = (...ids: string[]) => sorted(changes.filter((c) => ids.includes(c.id)).map((c) => c.endpoint));
    assert.equal(of('endpoint-added'), ops(report.added), `diff ${SPOT[i].id}: endpoints added`);
    assert.equal(of('endpoint-removed'), ops(report.removed), `diff ${SPOT[i].id}: endpoints removed`);
    const paramsOf = (...ids: string[]) => sorted(changes.filter((c) => ids.includes(c.id)).map((c) => `param ${c.endpoint} ${c.name}`));
    assert.equal(paramsOf('parameter-added', 'required-parameter-added'), params(report.added), `diff ${SPOT[i].id}: parameters added`);
    assert.equal(paramsOf('parameter-removed'), params(report.removed), `diff ${SPOT[i].id}: parameters removed`);
  }

  // Served with every release: an endpoint added in 1.21.0 is refused at 1.20.1 and forwarded at 1.21.0.
  const added = 'GET /api/v3/ticker/tradingDay';
  assert.ok(reports[1].added.includes(added));
  const upstream = await startUpstream({});
  const gw = await gatewayAt(undefined, upstream.url, ['--catalogue', dir, '--release', 'all'], { logger: createLogger('silent') });
  try {
    const before = await fetch(`${gw.url}/@1.20.1/api/v3/ticker/tradingDay?symbol=BNBUSDT`);
    await before.arrayBuffer();
    assert.is(before.status, 404);
    const at = await fetch(`${gw.url}/@1.21.0/api/v3/ticker/tradingDay?symbol=BNBUSDT`);
    await at.arrayBuffer();
    assert.is(at.status, 200);
    assert.equal((await upstream.records()).map((r) => r.url), ['/api/v3/ticker/tradingDay?symbol=BNBUSDT']);
  } finally {
    await gw.close();
    await upstream.stop();
  }

  // Again: not a byte changes; the JSON report.
  const bytes = snapshot(dir);
  const again = runTool('catalogue', ['import', join(ROOT, SPOT[2].file), '--service', serviceDir, '--release', '1.22.0', '--format', 'json']);
  assert.is(again.status, 0, again.stderr);
  assert.equal(snapshot(dir), bytes);
  const json = JSON.parse(again.stdout) as ReleaseImportReport;
  assert.equal(json.added, reports[2].added);
  assert.equal(json.removed, reports[2].removed);
  assert.equal(json.files, []);
  assert.is(json.createdRelease, false);
  assert.equal(snapshot(dir), bytes);
});

// --- a small description: deprecation with a named replacement, the move proposed at removal, enum values, templated paths ---

const v = (over: (d: any) => void) => {
  const doc: any = {
    openapi: '3.0.3', info: { title: 'Items', version: '1' }, servers: [{ url: 'https://items.example' }],
    components: { parameters: { kind: { name: 'kind', in: 'query', schema: { type: 'string', enum: ['A', 'B'] } } } },
    paths: {
      '/v1/items': { parameters: [{ name: 'region', in: 'query', schema: { type: 'string', enum: ['EU', 'US'] } }], get: { tags: ['Items'], parameters: [{ $ref: '#/components/parameters/kind' }] } },
      '/v1/items/{id}': { get: { tags: ['Items'], parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }] } },
      '/v1/old': { get: { tags: ['Items'], parameters: [{ name: 'q', in: 'query', schema: { type: 'string' } }] } },
      '/v1/legacy': { post: { tags: ['Items'], parameters: [{ name: 'x', in: 'query', schema: { type: 'integer' } }] } },
    },
  };
  over(doc);
  return doc;
};
const ITEMS = [
  v(() => undefined),
  v((d) => {
    d.info.version = '2';
    d.components.parameters.kind.schema.enum.push('C');
    d.paths['/v1/items'].parameters[0].schema.enum = ['EU'];
    d.paths['/v1/items'].get.parameters.push({ name: 'limit', in: 'query', deprecated: true, schema: { type: 'integer' } });
    Object.assign(d.paths['/v1/old'].get, { deprecated: true, description: 'Use `GET /v1/new` instead.' });
    d.paths['/v1/new'] = { get: { tags: ['Items'], parameters: [{ name: 'q', in: 'query', schema: { type: 'string' } }] } };
    delete d.paths['/v1/legacy'];
  }),
];
ITEMS.push(v((d) => {
  Object.assign(d, JSON.parse(JSON.stringify(ITEMS[1])));
  d.info.version = '3';
  delete d.paths['/v1/old'];
}));

test('deprecation, a replacement moved to, enum values, templated paths; lint after each; idempotent', () => {
  const { dir, serviceDir } = emptyCatalogue('items');
  const reports = ITEMS.map((doc, i) => {
    const file = join(dir, `items-${i + 1}.json`);
    writeFileSync(file, JSON.stringify(doc));
    const r = importRelease(file, serviceDir, { release: `${i + 1}.0`, date: `2024-0${i + 1}-01` });
    const lint = runTool('catalogue', ['lint', '--catalogue', dir]);
    assert.is(lint.status, 0, lint.stdout + lint.stderr);
    return r;
  });
  assert.equal(reports[0].added, ['GET /v1/items', 'GET /v1/items/{id}', 'GET /v1/old', 'POST /v1/legacy']);
  assert.equal(reports[0].skipped, []);
  assert.equal(reports[1].added, ['GET /v1/new', 'enum Kind C', 'param GET /v1/items limit']);
  assert.equal(reports[1].removed, ['POST /v1/legacy', 'enum Region US']);
  assert.equal(reports[1].deprecated, ['GET /v1/old', 'param GET /v1/items limit']);
  assert.equal(reports[1].proposed, ['unbridgeable POST /v1/legacy at 2.0', 'unbridgeable GET /v1/items parameter region values US at 2.0']);
  assert.equal(reports[2].removed, ['GET /v1/old']);
  assert.equal(reports[2].proposed, ['change 3-0-v1-old-moved: GET /v1/old at 3.0: move GET /v1/new']);
  assert.is(reports[2].source, 'openapi items-3.json (version 3)');

  const svc = loadCatalogue(dir, { modelCache: false }).catalogue.services[0];
  const one = svc.endpoints.find((e) => e.key === 'GET /v1/items/{id}')!;
  assert.equal(one.parameters.map((p) => [p.name, p.in, p.required, p.schema]), [['id', 'path', true, { type: 'integer' }]]);
  const old = svc.endpoints.find((e) => e.key === 'GET /v1/old')!;
  assert.equal([old.deprecated, old.removed, old.replacement], ['2.0', '3.0', 'GET /v1/new']);
  assert.equal(svc.enums.Kind.values.map((x) => [x.value, x.added ?? null, x.removed ?? null]), [['A', null, null], ['B', null, null], ['C', '2.0', null]]);
  assert.equal(svc.enums.Region.values.map((x) => [x.value, x.removed ?? null]), [['EU', null], ['US', '2.0']]);
  assert.equal(svc.changes.changes.map((c) => [c.operation, c.release, c.request.map((s) => s.kind === 'move' && s.to)]), [['GET /v1/old', '3.0', ['GET /v1/new']]]);
  const bytes = snapshot(dir);
  importRelease(join(dir, 'items-3.json'), serviceDir, { release: '3.0' });
  assert.equal(snapshot(dir), bytes, 'the same import again changes nothing');
  // A dry run reports what it would write, and writes nothing.
  const dry = runTool('catalogue', ['import', join(dir, 'items-1.json'), '--service', serviceDir, '--release', '4.0', '--date', '2024-04-01', '--dry-run', '--format', 'json']);
  assert.is(dry.status, 0, dry.stderr);
  const would = JSON.parse(dry.stdout) as ReleaseImportReport;
  assert.equal([would.dryRun, would.createdRelease, would.added, would.removed], [true, true, ['GET /v1/old', 'POST /v1/legacy', 'enum Region US'], ['GET /v1/new', 'enum Kind C', 'param GET /v1/items limit']]);
  assert.equal(would.files, ['changes.yaml', 'endpoints/items.yaml', 'enums.yaml', 'releases.yaml']);
  assert.equal(snapshot(dir), bytes, 'a dry run writes nothing');
  const text = runTool('catalogue', ['import', join(dir, 'items-1.json'), '--service', serviceDir, '--release', '4.0', '--date', '2024-04-01', '--dry-run']);
  assert.match(text.stdout, /^added POST \/v1\/legacy$/m);
  assert.match(text.stdout, /^would write releases\.yaml$/m);
});

test('a required parameter made optional: required until the release, optional from it; the reverse stays a difference for a person', () => {
  const { dir, serviceDir } = emptyCatalogue('items');
  const docs = [
    v((d) => { d.paths['/v1/old'].get.parameters[0].required = true; }),
    v((d) => { d.info.version = '2'; d.paths['/v1/legacy'].post.parameters[0].required = true; }),
  ];
  const files = docs.map((doc, i) => { const f = join(dir, `req-${i + 1}.json`); writeFileSync(f, JSON.stringify(doc)); return f; });
  importRelease(files[0], serviceDir, { release: '1.0', date: '2024-01-01' });
  const r = importRelease(files[1], serviceDir, { release: '2.0', date: '2024-02-01' });
  assert.equal(r.optional, ['param GET /v1/old q']);
  assert.equal(r.differs, ['param POST /v1/legacy x: optional in the catalogue, required in openapi req-2.json (version 2)']);
  const lint = runTool('catalogue', ['lint', '--catalogue', dir]);
  assert.is(lint.status, 0, lint.stdout + lint.stderr);
  const svc = loadCatalogue(dir, { modelCache: false }).catalogue.services[0];
  const q = (release: string) => resolveService(svc, release).served.find((e) => e.endpoint.key === 'GET /v1/old')!.parameters.find((p) => p.name === 'q')!;
  assert.equal([q('1.0').required, q('2.0').required], [true, false]);
  const diff = runTool('diff-releases', ['1.0', '2.0', '--catalogue', dir]);
  assert.match(diff.stdout, /parameter-became-optional +query parameter q became optional/);
  const bytes = snapshot(dir);
  const again = importRelease(files[1], serviceDir, { release: '2.0' });
  assert.equal(again.optional, ['param GET /v1/old q']);
  assert.equal(snapshot(dir), bytes, 'the same import again changes nothing');
});

// --- security: SIGNED (takes `signature`), API_KEY (the key scheme), NONE ---

const signing = [{ name: 'timestamp', in: 'query', required: true, schema: { type: 'integer' } }, { name: 'signature', in: 'query', required: true, schema: { type: 'string' } }];
const secured = (security: Record<string, 'NONE' | 'API_KEY' | 'SIGNED'>, version: string) => ({
  openapi: '3.0.3', info: { title: 'Desk', version }, servers: [{ url: 'https://desk.example' }],
  components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Key' } } },
  paths: Object.fromEntries(Object.entries(security).map(([path, s]) => [path, {
    get: { tags: ['Desk'], ...(s === 'NONE' ? {} : { security: [{ key: [] }] }), ...(s === 'SIGNED' ? { parameters: signing } : {}) },
  }])),
});

test('a security requirement relaxed: the stricter entry ends at the release, the laxer one begins, reported; a stricter one stays a difference; idempotent', () => {
  const { dir, serviceDir } = emptyCatalogue('desk');
  const file = (name: string, doc: unknown) => { const f = join(dir, name); writeFileSync(f, JSON.stringify(doc)); return f; };
  const sources = [
    file('desk-1.json', secured({ '/v1/schedule': 'SIGNED', '/v1/orders': 'SIGNED', '/v1/items': 'API_KEY', '/v1/open': 'NONE' }, '1')),
    file('desk-2.json', secured({ '/v1/schedule': 'API_KEY', '/v1/orders': 'SIGNED', '/v1/items': 'NONE', '/v1/open': 'API_KEY' }, '2')),
    // A method table says only whether its client signs: `signed: false` lowers SIGNED to API_KEY, not further.
    file('desk-3.json', { methods: [
      { method: 'GET', path: '/v1/schedule', signed: false }, { method: 'GET', path: '/v1/orders', signed: false, params: [{ name: 'timestamp' }] },
      { method: 'GET', path: '/v1/items', signed: false }, { method: 'GET', path: '/v1/open', signed: true },
    ] }),
    file('desk-4.json', secured({ '/v1/schedule': 'NONE', '/v1/orders': 'API_KEY', '/v1/items': 'NONE', '/v1/open': 'NONE' }, '4')),
  ];
  // Each import loads and checks the edited folder before it writes (lint's checks), so no lint run here.
  const reports = sources.map((f, i) => importRelease(f, serviceDir, { release: `${i + 1}.0`, date: `2024-0${i + 1}-01` }));
  assert.equal(reports[1].relaxed, ['GET /v1/items: security API_KEY → NONE', 'GET /v1/schedule: security SIGNED → API_KEY']);
  assert.equal(reports[1].differs, ['GET /v1/open: security NONE in the catalogue, API_KEY in openapi desk-2.json (version 2)']);
  assert.equal(reports[2].relaxed, ['GET /v1/orders: security SIGNED → API_KEY']);
  assert.equal(reports[2].differs, ['GET /v1/open: security NONE in the catalogue, SIGNED in method table desk-3.json']);
  // No signedParametersAccepted here: the timestamp that client still sends would be refused under --strict.
  assert.ok(reports[2].notes.includes('GET /v1/orders: method table desk-3.json sends timestamp, which API_KEY does not take on this path (--strict refuses it): add it to the endpoint or to service.yaml signedParametersAccepted'), reports[2].notes.join('\n'));
  assert.equal(reports[3].relaxed, ['GET /v1/schedule: security API_KEY → NONE']);
  for (const r of reports) assert.equal([r.removed, r.deprecated, r.proposed], [[], [], []]);

  const { catalogue } = loadCatalogue(dir, { modelCache: false });
  const svc = catalogue.services[0];
  const at = (key: string) => ['1.0', '2.0', '3.0', '4.0'].map((release) => resolveService(svc, release).served.find((e) => e.endpoint.key === key)!.security);
  assert.equal(at('GET /v1/schedule'), ['SIGNED', 'API_KEY', 'API_KEY', 'NONE']);
  assert.equal(at('GET /v1/orders'), ['SIGNED', 'SIGNED', 'API_KEY', 'API_KEY']);
  assert.equal(at('GET /v1/items'), ['API_KEY', 'NONE', 'NONE', 'NONE']);
  assert.equal(at('GET /v1/open'), ['NONE', 'NONE', 'NONE', 'NONE']);
  // Written like a parameter made optional: one entry per requirement, each with the release it ends or begins at and its source.
  const yaml = readFileSync(join(serviceDir, 'endpoints/desk.yaml'), 'utf8');
  assert.ok(yaml.includes(`    path: /v1/schedule
    added: "1.0"
    source: openapi desk-1.json (version 1)
    security:
      - { scheme: SIGNED, removed: "2.0", source: "API_KEY from 2.0: openapi desk-2.json (version 2)" }
      - { scheme: API_KEY, added: "2.0", removed: "4.0", source: "openapi desk-2.json (version 2); NONE from 4.0: openapi desk-4.json (version 4)" }
      - { scheme: NONE, added: "4.0", source: openapi desk-4.json (version 4) }
`), yaml);
  assert.ok(yaml.includes('\n      - { scheme: API_KEY, added: "3.0", source: method table desk-3.json, note: "the client does not sign it; API_KEY, not NONE: the description does not say it sends no key" }\n'), yaml);
  // The diff: a relaxation, not breaking (info), the signing parameters folded into it.
  const changes = (from: string, to: string) => diffReleases(catalogue, 'desk', from, to).changes.map((c) => [c.id, c.severity, c.endpoint, c.release, c.message]);
  assert.equal(changes('1.0', '2.0'), [
    ['security-relaxed', 'info', 'GET /v1/items', '2.0', 'security requirement lowered from API_KEY to NONE'],
    ['security-relaxed', 'info', 'GET /v1/schedule', '2.0', 'security requirement lowered from SIGNED to API_KEY'],
  ]);
  assert.equal(changes('2.0', '3.0'), [['security-relaxed', 'info', 'GET /v1/orders', '3.0', 'security requirement lowered from SIGNED to API_KEY']]);

  const bytes = snapshot(dir);
  const again = importRelease(sources[3], serviceDir, { release: '4.0' });
  assert.equal(again.relaxed, reports[3].relaxed);
  assert.equal(snapshot(dir), bytes, 'the same import again changes nothing');
  const text = formatReport(again);
  assert.match(text, /^relaxed GET \/v1\/schedule: security API_KEY → NONE \(from 4\.0\)$/m);
  assert.match(text, / 1 security relaxed, /);
});

test('refused: a release in the middle, a conflicting date, a new release without a date, an import lint would fail', () => {
  const { dir, serviceDir } = emptyCatalogue('items');
  const file = join(dir, 'items.json');
  writeFileSync(file, JSON.stringify(ITEMS[0]));
  importRelease(file, serviceDir, { release: '1.0', date: '2024-01-01' });
  importRelease(file, serviceDir, { release: '2.0', date: '2024-02-01' });
  assert.throws(() => importRelease(file, serviceDir, { release: '1.0' }), /not its last release \(2\.0\)/);
  assert.throws(() => importRelease(file, serviceDir, { release: '2.0', date: '2024-02-02' }), /dated 2024-02-01/);
  assert.throws(() => importRelease(file, serviceDir, { release: '3.0' }), /give its date with --date/);
  // A version change written by hand maps kind=B to A; a release without A would leave it mapping to
  // nothing: the import is refused, with the loader's problem, and writes nothing.
  writeFileSync(join(serviceDir, 'changes.yaml'), "changes:\n  - id: kind-b-to-a\n    release: '2.0'\n    operation: GET /v1/items\n    source: test\n    request:\n      - map: { parameter: kind, values: { B: A } }\n");
  assert.is(runTool('catalogue', ['lint', '--catalogue', dir]).status, 0);
  const withoutA = join(dir, 'without-a.json');
  writeFileSync(withoutA, JSON.stringify(v((d) => { d.components.parameters.kind.schema.enum = ['B']; })));
  const bytes = snapshot(dir);
  const refused = runTool('catalogue', ['import', withoutA, '--service', serviceDir, '--release', '3.0', '--date', '2024-03-01']);
  assert.is(refused.status, 1, refused.stdout + refused.stderr);
  assert.match(refused.stdout, /^removed enum Kind A$/m);
  assert.match(refused.stderr, /change kind-b-to-a: plan .*kind=A is not a value/);
  assert.match(refused.stderr, /nothing written/);
  assert.equal(snapshot(dir), bytes);
  const usage = runTool('catalogue', ['import', file, '--service', serviceDir]);
  assert.is(usage.status, 2);
  assert.match(usage.stderr, /--service <dir> and --release <id>/);
});

const KEPT = 'POST /sapi/v1/userListenToken';

test('today\'s method table is what the exchange catalogue holds: imported again into a copy, it writes nothing and reports the /sapi changes', () => {
  const dir = shippedCopy('release-import-exchange-');
  const table = JSON.parse(readFileSync(join(ROOT, 'data/binance-modular-connectors-2026-08-21.json'), 'utf8')).methods as { key: string; path: string }[];
  const svc = loadCatalogue(dir, { cacheDir: cacheDirFrom() }).catalogue.services.find((s) => s.id === 'exchange')!;
  const before = resolveService(svc, '2026.07.01').served.map((e) => e.endpoint.key);
  const after = new Set(resolveService(svc, '2026.08.21').served.map((e) => e.endpoint.key));
  const listed = new Set(table.map((m) => m.key));
  const sapi = (k: string) => k.split(' ')[1].startsWith('/sapi/');
  const files = snapshot(dir);

  const r = runTool('catalogue', ['import', join(ROOT, 'data/binance-modular-connectors-2026-08-21.json'), '--service', join(dir, 'exchange'), '--release', '2026.08.21', '--paths', '/api/,/sapi/', '--format', 'json']);
  assert.is(r.status, 0, r.stderr);
  const report = JSON.parse(r.stdout) as ReleaseImportReport;
  const lacked = sorted([...listed].filter((k) => sapi(k) && !before.includes(k)));
  // Dropped by the clients: deprecated, unless the catalogue retires it at this release itself (the margin listen keys).
  const dropped = sorted(before.filter((k) => sapi(k) && !listed.has(k) && after.has(k)));
  assert.is(lacked.length, 123); // 152 the catalogue lacked at 3.12.0, less 29 the connectors of 2025-03-28 already had (added 2025.03.28)
  // 31 the clients dropped, and the margin listen token they never had: the catalogue keeps it from the
  // exchange's documentation (developers.binance.com margin_trading/trade-data-stream), a source this import
  // does not read yet (issue 48), so the table alone would stamp it deprecated.
  assert.is(dropped.length, 32);
  assert.ok(dropped.includes(KEPT), KEPT);
  assert.equal(ops(report.added).filter(sapi), lacked);
  assert.equal(ops(report.deprecated).filter(sapi), dropped);
  assert.equal(report.removed, []);
  assert.is(report.previous, '2026.07.01');
  assert.is(report.createdRelease, false, 'the release was already listed');
  assert.is(report.leftOut, table.filter((m) => !m.path.startsWith('/api/') && !m.path.startsWith('/sapi/')).length);
  assert.ok(report.notes.some((n) => /not what the upstream serves/.test(n)), report.notes.join('\n'));
  // Required in the 2025-03-28 table, optional (11) or no longer sent (1) in this one: written as
  // such; what became required stays for a person.
  assert.is(report.optional.length, 12);
  for (const p of ['param GET /sapi/v1/simple-earn/flexible/history/rewardsRecord type', 'param GET /sapi/v1/mining/hash-transfer/profit/details userName']) assert.ok(report.optional.includes(p), report.optional.join('\n'));
  assert.not.ok(report.differs.some((d) => /required in the catalogue, optional in/.test(d)), report.differs.join('\n'));
  // SIGNED in the catalogue, unsigned by today's client: SIGNED until the release, API_KEY from it (written by an earlier run).
  assert.equal(report.relaxed, [
    'GET /sapi/v1/c2c/orderMatch/listUserOrderHistory', 'GET /sapi/v1/dci/product/list', 'GET /sapi/v1/margin/delist-schedule',
    'GET /sapi/v1/margin/isolated/allPairs', 'GET /sapi/v1/spot/delist-schedule',
  ].map((k) => `${k}: security SIGNED → API_KEY`));
  // Nothing else to write: the stamp on the margin listen token is the import's only edit.
  const written = snapshot(dir);
  const stream = join(dir, 'exchange/endpoints/data-stream.yaml');
  const stamp = ` deprecated 2026.08.21: absent from method table binance-modular-connectors-2026-08-21.json`;
  assert.ok(written.get(stream)!.includes(stamp), 'the listen token stamped deprecated by the table');
  written.set(stream, written.get(stream)!.replace(`\n    deprecated: 2026.08.21\n`, '\n').replace(`;${stamp}`, ''));
  assert.equal(written, files, 'the shipped catalogue is the import\'s result, the listen token kept: nothing else to write');
  for (const k of lacked) assert.ok(after.has(k), `${k} served at 2026.08.21`);
});

test.run();
