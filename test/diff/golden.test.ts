// Golden files of the three formats for four exchange ranges (test/diff/golden/<from>_<to>.<ext>).
// UPDATE_GOLDEN=1 rewrites them from the current catalogue; read the result before committing it.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { diffReleases, format, type Change, type Format } from '../../src/diff/index.js';
import { GOLDEN_DIR } from './support.js';

const { catalogue } = loadCatalogue();
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const EXT: Record<Format, string> = { text: 'txt', markdown: 'md', json: 'json', junit: 'junit.xml', github: 'github.txt', html: 'html' };

const RANGES = [
  ['1.6.0', '1.7.0'], // universal transfer types churn
  ['3.5.1', '3.6.0'], // margin transfer/loan/repay replaced by borrow-repay
  ['3.7.0', '3.8.0'], // OCO deprecations, OTO/OTOCO added
  ['3.12.0', '1.0.0'], // the whole history, downgraded
] as const;

for (const [from, to] of RANGES) {
  for (const fmt of ['text', 'markdown', 'json'] as const) {
    test(`${from} → ${to} as ${fmt} matches its golden file`, () => {
      const file = join(GOLDEN_DIR, `${from}_${to}.${EXT[fmt]}`);
      const actual = format(diffReleases(catalogue, 'exchange', from, to), fmt);
      if (UPDATE) writeFileSync(file, actual);
      assert.ok(existsSync(file), `${file} is missing; run the tests with UPDATE_GOLDEN=1`);
      assert.fixture(actual, readFileSync(file, 'utf8'));
    });
  }
}

// The CI formats on two ranges (paths as the repository root sees them: catalogue/…).
for (const [from, to] of [['3.5.1', '3.6.0'], ['3.7.0', '3.8.0']] as const) {
  for (const fmt of ['junit', 'github', 'html'] as const) {
    test(`${from} → ${to} as ${fmt} matches its golden file`, () => {
      const file = join(GOLDEN_DIR, `${from}_${to}.${EXT[fmt]}`);
      const actual = format(diffReleases(catalogue, 'exchange', from, to), fmt, { pathPrefix: 'catalogue' });
      if (UPDATE) writeFileSync(file, actual);
      assert.ok(existsSync(file), `${file} is missing; run the tests with UPDATE_GOLDEN=1`);
      assert.fixture(actual, readFileSync(file, 'utf8'));
    });
  }
}

// What the goldens must show whatever else the catalogue gains: facts from the seed.
const changes = (from: string, to: string): Change[] => JSON.parse(readFileSync(join(GOLDEN_DIR, `${from}_${to}.json`), 'utf8')).changes;
const has = (cs: Change[], want: Partial<Change>) => cs.some((c) => Object.entries(want).every(([k, v]) => c[k as keyof Change] === v));

test('1.6.0 → 1.7.0: MAIN_PAY and PAY_MAIN leave TransferType (breaking), FUNDING types arrive, rateLimit/order added', () => {
  const cs = changes('1.6.0', '1.7.0');
  for (const value of ['MAIN_PAY', 'PAY_MAIN', 'MAIN_C2C', 'C2C_MAIN']) {
    assert.ok(has(cs, { id: 'enum-value-removed', severity: 'breaking', enum: 'TransferType', value, release: '1.7.0' }), value);
  }
  for (const value of ['MAIN_FUNDING', 'FUNDING_MAIN', 'FUNDING_UMFUTURE', 'CMFUTURE_FUNDING']) {
    assert.ok(has(cs, { id: 'enum-value-added', severity: 'info', enum: 'TransferType', value, release: '1.7.0' }), value);
  }
  const transfer = cs.find((c) => c.enum === 'TransferType')!;
  assert.ok(transfer.usedBy!.some((u) => u.endpoint === 'POST /sapi/v1/asset/transfer' && u.name === 'type'), 'names the universal transfer parameter');
  assert.is(cs.filter((c) => c.enum === 'TransferType' && c.value === 'MAIN_PAY').length, 1, 'once per enum, not per endpoint');
  assert.ok(has(cs, { id: 'endpoint-added', endpoint: 'GET /api/v3/rateLimit/order', release: '1.7.0' }));
});

test('3.5.1 → 3.6.0: margin loan endpoints removed (breaking), borrow-repay added', () => {
  const cs = changes('3.5.1', '3.6.0');
  for (const endpoint of ['POST /sapi/v1/margin/loan', 'GET /sapi/v1/margin/repay', 'POST /sapi/v1/margin/transfer']) {
    assert.ok(has(cs, { id: 'endpoint-removed', severity: 'breaking', endpoint, release: '3.6.0' }), endpoint);
  }
  assert.ok(has(cs, { id: 'endpoint-added', endpoint: 'POST /sapi/v1/margin/borrow-repay', release: '3.6.0' }));
});

test('3.7.0 → 3.8.0: OCO deprecated (warning) in favour of orderList/oco, OTO and OTOCO added', () => {
  const cs = changes('3.7.0', '3.8.0');
  assert.ok(has(cs, { id: 'endpoint-deprecated', severity: 'warning', endpoint: 'POST /api/v3/order/oco', release: '3.8.0' }));
  assert.ok(has(cs, { id: 'ws-method-deprecated', severity: 'warning', name: 'orderList.place', release: '3.8.0' }));
  for (const endpoint of ['POST /api/v3/orderList/oto', 'POST /api/v3/orderList/otoco']) assert.ok(has(cs, { id: 'endpoint-added', endpoint }), endpoint);
  for (const name of ['orderList.place.oto', 'orderList.place.otoco', 'orderList.place.oco']) assert.ok(has(cs, { id: 'ws-method-added', name }), name);
});

test('3.12.0 → 1.0.0: additions become removals dated by the adding release, removals come back', () => {
  const cs = changes('3.12.0', '1.0.0');
  assert.ok(has(cs, { id: 'endpoint-removed', severity: 'breaking', endpoint: 'POST /sapi/v1/margin/borrow-repay', release: '3.6.0' }));
  assert.ok(has(cs, { id: 'endpoint-added', severity: 'info', endpoint: 'POST /sapi/v1/margin/loan', release: '3.6.0' }));
  assert.ok(has(cs, { id: 'ws-method-removed', name: 'ping', release: '3.0.0rc1' }));
  assert.ok(has(cs, { id: 'security-tightened', endpoint: 'GET /api/v3/historicalTrades', before: 'NONE', after: 'API_KEY', release: '3.2.0' }));
  assert.not.ok(cs.some((c) => c.id.endsWith('-deprecated')), 'nothing is deprecated at 1.0.0');
});

test('an upgrade says, per breaking change, whether old clients are bridged; a downgrade does not', () => {
  const up = diffReleases(catalogue, 'exchange', '3.5.1', '3.12.0').changes;
  const loan = up.find((c) => c.id === 'endpoint-removed' && c.endpoint === 'POST /sapi/v1/margin/loan')!;
  assert.equal([loan.bridged, loan.message], [true, 'endpoint removed; use POST /sapi/v1/margin/borrow-repay; old clients: bridged by version change margin-loan-to-borrow-repay']);
  const bswap = up.find((c) => c.id === 'endpoint-removed' && c.endpoint === 'POST /sapi/v1/bswap/swap')!;
  assert.is(bswap.bridged, false);
  assert.match(bswap.message, /old clients: not bridged: refused 410 \(declared unbridgeable\)$/);
  const oco = up.find((c) => c.id === 'ws-method-deprecated' && c.name === 'orderList.place')!;
  assert.match(oco.message, /old clients: carried to the replacement by version change oco-place-to-order-list-oco$/);
  assert.is(up.find((c) => c.id === 'endpoint-added')?.bridged, undefined, 'an addition breaks nobody');
  const down = diffReleases(catalogue, 'exchange', '3.12.0', '3.5.1').changes;
  assert.ok(down.length > 0 && down.every((c) => c.bridged === undefined && !c.message.includes('old clients')));
});

test.run();
