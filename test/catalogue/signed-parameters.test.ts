// Where the signing parameters are taken: required on every SIGNED endpoint, optional on every other
// endpoint under a path service.yaml lists in security.signedParametersAccepted (clients such as ccxt
// sign every /sapi call), and nowhere else.
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { DEFAULT_CATALOGUE_DIR, loadCatalogue } from '../../src/catalogue/load.js';
import { findService, resolveService } from '../../src/catalogue/resolve.js';

const service = findService(loadCatalogue(DEFAULT_CATALOGUE_DIR).catalogue, 'exchange');
const view = resolveService(service, '3.12.0');
const at = (key: string) => view.served.find((e) => e.endpoint.key === key)!;
const SIGNING = ['timestamp', 'signature', 'recvWindow'];

test('an unsigned /sapi endpoint takes the signing parameters, optional', () => {
  const e = at('GET /sapi/v1/margin/allPairs');
  assert.is(e.security, 'API_KEY');
  for (const name of SIGNING) {
    const p = e.parameters.filter((x) => x.name === name);
    assert.is(p.length, 1, name);
    assert.is(p[0].required, false, name);
  }
});

test('a SIGNED endpoint lists each signing parameter once, timestamp and signature required', () => {
  for (const key of ['GET /sapi/v1/capital/deposit/hisrec', 'POST /api/v3/order']) {
    const e = at(key);
    assert.is(e.security, 'SIGNED');
    for (const name of SIGNING) assert.is(e.parameters.filter((x) => x.name === name).length, 1, `${key} ${name}`);
    assert.ok(e.parameters.find((x) => x.name === 'timestamp')!.required, key);
  }
});

test('an unsigned /api/v3 endpoint does not take them', () => {
  const e = at('GET /api/v3/depth');
  for (const name of SIGNING) assert.not.ok(e.parameters.some((x) => x.name === name), name);
});

test('the accepted copies keep the signed schema (a bad recvWindow is still refused)', () => {
  const p = at('GET /sapi/v1/margin/allPairs').parameters.find((x) => x.name === 'recvWindow')!;
  assert.equal(p.schema, service.signedParameters.find((x) => x.name === 'recvWindow')!.schema);
});

test.run();
