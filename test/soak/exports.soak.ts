// The exports at releases other than the pin (npm test checks the pin; `npm run lint:exports` every
// release): redocly's recommended ruleset and swagger-parser on the OpenAPI of the oldest and a
// middle release, @asyncapi/parser on the AsyncAPI of the first websocket-API release and the middle one.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { pinViews } from '../../src/catalogue/pin.js';
import { resolveService } from '../../src/catalogue/resolve.js';
import { toAsyncApi } from '../../src/catalogue/to-asyncapi.js';
import { toOpenApi } from '../../src/catalogue/to-openapi.js';
import { asyncApiErrors, redoclyLint, swaggerValidate } from '../../tools/export-checks.js';
import { tempDir } from '../support/temp.js';

const test = suite('exports at other releases');
const { catalogue } = loadCatalogue();
const exchange = catalogue.services.find((s) => s.id === 'exchange')!;
const openApiAt = (release: string) => toOpenApi(pinViews(catalogue, { all: release, byService: {} })) as Record<string, unknown>;

test('OpenAPI at 1.0.0 and 3.6.0: 0 redocly errors, valid for swagger-parser', async () => {
  const dir = tempDir('exports-soak-');
  const releases = ['1.0.0', '3.6.0'];
  const files = releases.map((r) => {
    const f = join(dir, `openapi-${r}.json`);
    writeFileSync(f, JSON.stringify(openApiAt(r)));
    return f;
  });
  redoclyLint(files).forEach((report, i) => assert.is(report.totals.errors, 0, `redocly errors at ${releases[i]}: ${JSON.stringify(report.problems.slice(0, 5))}`));
  for (const r of releases) await swaggerValidate(openApiAt(r)).then(() => assert.ok(true), (e: Error) => assert.unreachable(`swagger-parser at ${r}: ${e.message.slice(0, 800)}`));
});

test('AsyncAPI at 3.0.0rc1 and 3.6.0: no @asyncapi/parser error', async () => {
  for (const r of ['3.0.0rc1', '3.6.0']) assert.equal(await asyncApiErrors(toAsyncApi([resolveService(exchange, r)]) as Record<string, unknown>), [], `at ${r}`);
});

test.run();
