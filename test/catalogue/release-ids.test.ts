// Release ids are header- and path-safe tokens (they are sent in X-Gateway-Release and the /@<id>/
// prefix): an id node would refuse in a header (3.13.0-β, CR/LF) or one that breaks a path (a
// space, "/") is a file:line problem at load, in lint and on reload — before, `3.13.0-β` loaded and
// the first answer at that release ended the process.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { RELEASE_ID_MAX_LENGTH, RELEASE_ID_PATTERN, releaseIdProblem } from '../../src/catalogue/release-id.js';
import { createLogger } from '../../src/log.js';
import { gatewayAt } from '../support/gateway.js';
import { ROOT, startUpstream, type Upstream } from '../support/processes.js';
import { runTool } from '../support/tools.js';
import { catalogueFolder, problemsOf, shippedCopy } from './folder.js';

const test = suite('release ids');
const SCHEMA = JSON.parse(readFileSync(join(ROOT, 'catalogue/schema/catalogue.schema.json'), 'utf8'));
/** Ids the gateway cannot send, as YAML double-quoted scalars (so CR/LF can be written). */
const BAD: Record<string, string> = {
  'non-Latin-1': '"3.13.0-\u03b2"', 'CR/LF': '"3.13.0\\r\\nX-Injected: yes"', 'a space': '"3.13 0"', 'a slash': '"3.13/0"',
  'a leading dot': '".13"', 'a NUL': '"3.13\\0"', 'too long': `"${'1'.repeat(RELEASE_ID_MAX_LENGTH + 1)}"`,
};

const SERVICE = `id: demo\ntitle: Demo\nkind: proxy\nupstreams: { rest: 'http://127.0.0.1:1' }\nerrors: { envelope: code-msg, codes: { unknown: -1 } }\n`;
const endpoints = (added: string) => `module: things\nendpoints:\n  - { method: GET, path: /v1/thing, added: ${added} }\n`;

/** A one-service catalogue whose last release has id `id` (YAML text); `schema`: the folder's schema file. */
function demo(id: string, schema = JSON.stringify(SCHEMA)): string {
  return catalogueFolder({
    'schema/catalogue.schema.json': schema, 'demo/service.yaml': SERVICE,
    'demo/releases.yaml': `releases:\n  - { id: '1.0', date: '2024-01-01' }\n  - { id: ${id}, date: '2024-02-01' }\n`,
    'demo/endpoints/things.yaml': endpoints("'1.0'"),
  }, 'release-ids-');
}

test('the schema and the loader state the same rule; every id of the shipped catalogues passes it', () => {
  assert.is(SCHEMA.$defs.releaseId.pattern, RELEASE_ID_PATTERN);
  assert.is(SCHEMA.$defs.releaseId.maxLength, RELEASE_ID_MAX_LENGTH);
  const ids = loadCatalogue().catalogue.services.flatMap((s) => s.releases.map((r) => r.id));
  assert.ok(ids.includes('2.0.0-rc1') && ids.includes('3.0.0rc1'), ids.join(' '));
  for (const id of ids) assert.is(releaseIdProblem(id), null, id);
  for (const id of ['1.0.0+build.5', 'v2', '2024_01']) assert.is(releaseIdProblem(id), null, id);
});

test('a bad id is a file:line problem naming the value, with the shipped schema and with an older permissive one', () => {
  const permissive = JSON.parse(JSON.stringify(SCHEMA));
  permissive.$defs.releaseId = { type: 'string', minLength: 1 }; // the schema before the rule
  for (const [what, id] of Object.entries(BAD)) {
    for (const schema of [JSON.stringify(SCHEMA), JSON.stringify(permissive)]) {
      const problems = problemsOf(demo(id, schema), { cacheDir: false });
      assert.is(problems.length, 1, `${what}: ${problems.join('\n')}`);
      assert.match(problems[0], /demo\/releases\.yaml:3: /, what);
      assert.match(problems[0], /release id|pattern|characters/, what);
      assert.not.match(problems[0], /[\r\n\0]/, `${what}: the message escapes control characters`);
    }
  }
  // A reference to a bad id (added: …) is refused as well.
  const dir = demo("'1.1'");
  writeFileSync(join(dir, 'demo/endpoints/things.yaml'), endpoints(BAD['non-Latin-1']));
  assert.match(problemsOf(dir, { cacheDir: false }).join('\n'), /things\.yaml:3: endpoints\.0\.added: must match pattern .*\(got "3\.13\.0-β"\)/);
});

test('catalogue lint reports it as file:line and exits 1', () => {
  const r = runTool('catalogue', ['lint', '--catalogue', demo(BAD['CR/LF'])]);
  assert.is(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /^error: .*demo\/releases\.yaml:3: releases\.1\.id: must match pattern .* \(got "3\.13\.0\\r\\nX-Injected: yes"\)$/m);
  assert.is(r.stderr, '');
});

let upstream: Upstream;
test.before(async () => { upstream = await startUpstream({}); });
test.after(async () => { await upstream.stop(); });

test('a reload bringing a bad id is refused with the problem; the old program keeps serving', async () => {
  const dir = shippedCopy('release-ids-reload-');
  const gw = await gatewayAt(undefined, upstream.url, ['--catalogue', dir, '--release', 'all'], { logger: createLogger('silent') });
  try {
    appendFileSync(join(dir, 'exchange/releases.yaml'), "  - { id: '3.13.0-\u03b2', date: '2025-03-01' }\n");
    const r = await gw.reload('test');
    assert.is(r.ok, false, JSON.stringify(r));
    assert.match(r.problems!.join('\n'), /exchange\/releases\.yaml:\d+: .*"3\.13\.0-β"/);
    for (const release of ['3.12.0', '3.13.0-\u03b2']) {
      const res = await fetch(`${gw.url}/api/v3/ping`, { headers: { 'x-gateway-release': encodeURIComponent(release) } });
      await res.arrayBuffer();
      assert.is(res.status, release === '3.12.0' ? 200 : 400, release);
    }
  } finally {
    await gw.close();
  }
});

test.run();
