// The catalogue at the 3.12.0 pin against the three dated evidence files about the real API (see
// test/catalogue/evidence-sources.ts): endpoints, security, parameters, required flags and enum values. Every
// disagreement is printed; each must be answered in the YAML by a `note` on the item it concerns (the
// parameter, else the endpoint) that names the disagreeing source (OpenAPI, docs or connectors) and
// says why the catalogue differs. An endpoint the API had at the pin and the catalogue lacks cannot be
// noted: it must be added. Evidence dated after the pin (the connectors) that names an endpoint the
// catalogue lacks is listed for information only.
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { DEFAULT_CATALOGUE_DIR, loadCatalogue } from '../../src/catalogue/load.js';
import { findService, resolveService } from '../../src/catalogue/resolve.js';
import { loadEvidence } from './evidence-sources.js';
import { answered, compareWithEvidence } from './evidence-compare.js';

const PIN = '3.12.0';
const service = findService(loadCatalogue(DEFAULT_CATALOGUE_DIR).catalogue, 'exchange');
const evidence = loadEvidence();
const { all, info } = compareWithEvidence(service, PIN);

test('prints every disagreement with the evidence, and how it is answered', () => {
  const lines = all.map((d) => `${answered(d) ? 'noted ' : 'OPEN  '} ${d.key}: ${d.what}${d.note ? `\n         note: ${d.note}` : ''}`);
  console.log(`${all.length} disagreement(s) with the evidence at ${PIN} (${all.filter(answered).length} noted):\n${lines.join('\n')}`);
  if (info.length) console.log(`for information, ${info.length}:\n  ${info.join('\n  ')}`);
  assert.ok(evidence.openapi.size > 300 && evidence.docs.size > 30 && evidence.connectors.size > 300, 'the evidence files were read');
});

test('every disagreement carries a note naming its source', () => {
  const open = all.filter((d) => !answered(d));
  assert.equal(open.map((d) => `${d.key}${d.param ? ` ${d.param}` : ''}: ${d.what}`), [], `${open.length} un-noted disagreement(s)`);
});

test('no endpoint the API had at the pin is missing', () => {
  assert.equal(all.filter((d) => d.what.endsWith('missing from the catalogue')).map((d) => d.key), []);
});

test('a client library\'s own check is never the reason a parameter is required', () => {
  const view = resolveService(service, PIN);
  const kept = view.served.flatMap((e) => e.parameters.filter((p) => p.required && /client's check is kept/.test(p.note ?? '') && !/\bdocs\b/.test(p.note ?? '')).map((p) => `${e.endpoint.key} ${p.name}`));
  assert.equal(kept, []);
});

test.run();
