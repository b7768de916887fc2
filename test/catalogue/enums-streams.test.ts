// Enum values, websocket streams and websocket-API methods of the exchange catalogue, each checked
// at the releases where the seed, the client CHANGELOG or the client's 3.12.0 tables date them.
// The lists below are copied from data/ (exchange-enums-3.12.0.tsv and exchange-websocket-3.12.0.tsv);
// a test checks the copies against those files.
import { readFileSync } from 'node:fs';
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { findService, resolveService, type ReleaseView } from '../../src/catalogue/resolve.js';
import type { Service, Stream } from '../../src/catalogue/model.js';
import { StreamMatcher } from '../../src/gateway/websocket/stream-names.js';
import { dataFile } from '../helpers/seed.js';

const { catalogue } = loadCatalogue();
const exchange: Service = findService(catalogue, 'exchange');
const at = (release: string): ReleaseView => resolveService(exchange, release);
const enumValues = (release: string, name: string): Set<string> => new Set(at(release).enumValues(name).map((v) => v.value));
const streamNames = (release: string): Set<string> => new Set(at(release).streams.map((s) => s.name));
const methodNames = (release: string): Set<string> => new Set(at(release).wsMethods.map((m) => m.name));

/** exchange-enums-3.12.0.tsv: TransferType values of the client at 3.12.0. */
const TSV_TRANSFER_TYPES = [
  'MAIN_UMFUTURE', 'MAIN_CMFUTURE', 'MAIN_MARGIN', 'UMFUTURE_MAIN', 'UMFUTURE_MARGIN', 'CMFUTURE_MAIN', 'MARGIN_MAIN',
  'MARGIN_UMFUTURE', 'MARGIN_CMFUTURE', 'CMFUTURE_MARGIN', 'ISOLATEDMARGIN_MARGIN', 'MARGIN_ISOLATEDMARGIN',
  'ISOLATEDMARGIN_ISOLATEDMARGIN', 'MAIN_FUNDING', 'FUNDING_MAIN', 'FUNDING_UMFUTURE', 'UMFUTURE_FUNDING', 'MARGIN_FUNDING',
  'FUNDING_MARGIN', 'FUNDING_CMFUTURE', 'CMFUTURE_FUNDING', 'MAIN_OPTION', 'OPTION_MAIN', 'UMFUTURE_OPTION', 'OPTION_UMFUTURE',
  'MARGIN_OPTION', 'OPTION_MARGIN', 'FUNDING_OPTION', 'OPTION_FUNDING', 'MAIN_PORTFOLIO_MARGIN', 'PORTFOLIO_MARGIN_MAIN',
  'MAIN_ISOLATED_MARGIN', 'ISOLATED_MARGIN_MAIN',
];

/** exchange-websocket-3.12.0.tsv, ws_api_method rows: name → security (first word of the column). */
const TSV_WS_METHODS: Record<string, string> = {
  'account.status': 'SIGNED', 'account.rateLimits.orders': 'SIGNED', allOrders: 'SIGNED', allOrderLists: 'SIGNED',
  myTrades: 'SIGNED', myPreventedMatches: 'SIGNED', ping: 'NONE', time: 'NONE', exchangeInfo: 'NONE', depth: 'NONE',
  'trades.recent': 'NONE', 'trades.historical': 'API_KEY', 'trades.aggregate': 'NONE', klines: 'NONE', uiKlines: 'NONE',
  avgPrice: 'NONE', 'ticker.24hr': 'NONE', ticker: 'NONE', 'ticker.price': 'NONE', 'ticker.book': 'NONE',
  'order.place': 'SIGNED', 'order.test': 'SIGNED', 'order.status': 'SIGNED', 'order.cancel': 'SIGNED',
  'order.cancelReplace': 'SIGNED', 'openOrders.status': 'SIGNED', 'openOrders.cancelAll': 'SIGNED',
  'orderList.place.oco': 'SIGNED', 'orderList.place.oto': 'SIGNED', 'orderList.place.otoco': 'SIGNED',
  'orderList.status': 'SIGNED', 'orderList.cancel': 'SIGNED', 'openOrderLists.status': 'SIGNED',
  'userDataStream.start': 'API_KEY', 'userDataStream.ping': 'API_KEY', 'userDataStream.stop': 'API_KEY',
};

/** exchange-websocket-3.12.0.tsv, stream rows: the name column (templates the client builds). */
const TSV_STREAM_TEMPLATES = [
  '<symbol|lower>@aggTrade', '<symbol|lower>@trade', '<symbol|lower>@kline_<interval>', '<symbol|lower>@kline_<interval>@+08:00',
  '!miniTicker@arr | <symbol|lower>@miniTicker', '!ticker@arr | <symbol|lower>@ticker', '<symbol|lower>@bookTicker',
  '<symbol|lower>@depth<level>@<speed>ms', '<symbol|lower>@ticker_<windowSize>', '!ticker_<windowSize>@arr',
  '<symbol|lower>@depth@<speed>ms', '<listen_key>',
];
const LISTEN_KEY = 'pqia91ma19a5s61cv6a81va65sdf19v8a65a1a5s61cv6a81va65sdf19v8a65a1'.slice(0, 60);

/** Concrete stream names a client sends for a TSV template (placeholders filled with sample values). */
function concrete(template: string, sample: Record<string, string>): string[] {
  return template.split(' | ').map((t) => t.replace(/<([^>]+)>/g, (_, name: string) => {
    const v = sample[name];
    if (v === undefined) throw new Error(`no sample value for <${name}> in ${template}`);
    return v;
  }));
}
const SAMPLE = { 'symbol|lower': 'btcusdt', interval: '1m', level: '5', speed: '1000', windowSize: '1h', listen_key: LISTEN_KEY };
const SAMPLE2 = { 'symbol|lower': 'bnbbtc', interval: '1M', level: '20', speed: '100', windowSize: '1d', listen_key: LISTEN_KEY };

/** Templates alive at a release that a concrete stream name matches (the gateway's own matcher). */
function matching(release: string, name: string): Stream[] {
  return new StreamMatcher(at(release)).matching(name);
}

// ------------------------------------------------------------------------------------------------
test('enums.yaml defines every enum the endpoint files and stream placeholders refer to', () => {
  for (const name of [
    'TransferType', 'KlineInterval', 'TickerType', 'TickerWindowSize', 'SideEffectType', 'Permission', 'OrderSide', 'OrderType',
    'TimeInForce', 'NewOrderRespType', 'SelfTradePreventionMode', 'OrderRateLimitExceededMode', 'CancelRestrictions',
    'SymbolStatus', 'DustAccountType', 'TimeUnit', 'DepthLimit', 'DepthLevel', 'UpdateSpeed', 'RollingWindow',
  ]) {
    assert.ok(exchange.enums[name], `enum ${name} missing`);
    assert.ok(exchange.enums[name].values.length > 0, `enum ${name} has no values`);
  }
});

test('TransferType MAIN_PAY: added 1.6.0, removed 1.7.0', () => {
  assert.not.ok(enumValues('1.5.0', 'TransferType').has('MAIN_PAY'), 'not yet at 1.5.0');
  assert.ok(enumValues('1.6.0', 'TransferType').has('MAIN_PAY'), 'valid at 1.6.0');
  assert.not.ok(enumValues('1.7.0', 'TransferType').has('MAIN_PAY'), 'invalid at 1.7.0');
  assert.not.ok(enumValues('3.12.0', 'TransferType').has('PAY_MAIN'));
});

test('TransferType follows the seed table at 1.6.0, 1.7.0 and 1.10.0', () => {
  const v15 = enumValues('1.5.0', 'TransferType'), v16 = enumValues('1.6.0', 'TransferType');
  const v17 = enumValues('1.7.0', 'TransferType'), v19 = enumValues('1.9.0', 'TransferType'), v110 = enumValues('1.10.0', 'TransferType');
  for (const v of ['ISOLATEDMARGIN_MARGIN', 'MARGIN_ISOLATEDMARGIN', 'ISOLATEDMARGIN_ISOLATEDMARGIN']) {
    assert.not.ok(v15.has(v), `${v} not yet at 1.5.0`);
    assert.ok(v16.has(v), `${v} at 1.6.0`);
  }
  for (const v of ['MAIN_FUNDING', 'FUNDING_MAIN', 'FUNDING_UMFUTURE', 'UMFUTURE_FUNDING', 'MARGIN_FUNDING', 'FUNDING_MARGIN', 'FUNDING_CMFUTURE', 'CMFUTURE_FUNDING']) {
    assert.not.ok(v16.has(v), `${v} not yet at 1.6.0`);
    assert.ok(v17.has(v), `${v} at 1.7.0`);
  }
  for (const v of ['MAIN_C2C', 'C2C_MAIN', 'C2C_UMFUTURE', 'C2C_MINING', 'UMFUTURE_C2C', 'MINING_C2C', 'MARGIN_C2C', 'C2C_MARGIN', 'MAIN_PAY', 'PAY_MAIN']) {
    assert.ok(v16.has(v), `${v} valid at 1.6.0`);
    assert.not.ok(v17.has(v), `${v} deleted in 1.7.0`);
  }
  for (const v of ['MAIN_MINING', 'MINING_MAIN', 'MINING_UMFUTURE', 'MARGIN_MINING', 'MINING_MARGIN']) {
    assert.ok(v19.has(v), `${v} valid at 1.9.0`);
    assert.not.ok(v110.has(v), `${v} removed in 1.10.0`);
  }
  assert.ok(enumValues('1.0.0', 'TransferType').has('MAIN_UMFUTURE'), 'basic pairs exist from 1.0.0');
});

test('TransferType: every value of the client at 3.12.0 is alive at 3.12.0, and nothing else', () => {
  const alive = enumValues('3.12.0', 'TransferType');
  for (const v of TSV_TRANSFER_TYPES) assert.ok(alive.has(v), `${v} not alive at 3.12.0`);
  assert.equal([...alive].sort(), [...TSV_TRANSFER_TYPES].sort());
});

test('TransferType: the 3.3.1 values are the TSV values the seed and the 2021 list do not account for', () => {
  const before = enumValues('3.3.0', 'TransferType'), after = enumValues('3.3.1', 'TransferType');
  const added = [...after].filter((v) => !before.has(v)).sort();
  assert.equal(added, [
    'FUNDING_OPTION', 'ISOLATED_MARGIN_MAIN', 'MAIN_ISOLATED_MARGIN', 'MAIN_OPTION', 'MAIN_PORTFOLIO_MARGIN', 'MARGIN_OPTION',
    'OPTION_FUNDING', 'OPTION_MAIN', 'OPTION_MARGIN', 'OPTION_UMFUTURE', 'PORTFOLIO_MARGIN_MAIN', 'UMFUTURE_OPTION',
  ]);
  assert.equal([...before].filter((v) => !after.has(v)), [], '3.3.1 removes nothing');
});

test('the embedded TSV copies match data/', () => {
  const rows = readFileSync(dataFile('exchange-enums-3.12.0.tsv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t'));
  assert.equal(rows.filter((r) => r[0] === 'TransferType').map((r) => r[1].trim()).sort(), [...TSV_TRANSFER_TYPES].sort());
  const [head, ...wsRows] = readFileSync(dataFile('exchange-websocket-3.12.0.tsv'), 'utf8').trim().split('\n').map((l) => l.split('\t'));
  const col = (n: string) => head.indexOf(n);
  const methods = Object.fromEntries(wsRows.filter((r) => r[col('kind')] === 'ws_api_method').map((r) => [r[col('name')], r[col('security')].split(' ')[0]]));
  assert.equal(methods, TSV_WS_METHODS);
  assert.equal(wsRows.filter((r) => r[col('kind')] === 'stream').map((r) => r[col('name')]), TSV_STREAM_TEMPLATES);
});

test('KlineInterval 1s: absent at 1.16.0, present from 1.17.0', () => {
  assert.not.ok(enumValues('1.16.0', 'KlineInterval').has('1s'));
  assert.ok(enumValues('1.17.0', 'KlineInterval').has('1s'));
  assert.ok(enumValues('1.0.0', 'KlineInterval').has('1M'));
  assert.equal(enumValues('3.12.0', 'KlineInterval').size, 16);
});

test('TickerType FULL/MINI from 1.17.0; SideEffectType AUTO_BORROW_REPAY from 3.7.0', () => {
  assert.equal(enumValues('1.16.0', 'TickerType').size, 0);
  assert.equal([...enumValues('1.17.0', 'TickerType')].sort(), ['FULL', 'MINI']);
  assert.not.ok(enumValues('3.6.0', 'SideEffectType').has('AUTO_BORROW_REPAY'));
  assert.ok(enumValues('3.7.0', 'SideEffectType').has('AUTO_BORROW_REPAY'));
  for (const v of ['NO_SIDE_EFFECT', 'MARGIN_BUY', 'AUTO_REPAY']) assert.ok(enumValues('1.0.0', 'SideEffectType').has(v), v);
  for (const v of ['SPOT', 'MARGIN', 'LEVERAGED']) assert.ok(enumValues('3.12.0', 'Permission').has(v), v);
});

// ------------------------------------------------------------------------------------------------
test('!bookTicker: alive at 1.18.0, removed in 2.0.0', () => {
  assert.ok(streamNames('1.18.0').has('!bookTicker'));
  assert.not.ok(streamNames('2.0.0').has('!bookTicker'));
  assert.equal(matching('1.18.0', '!bookTicker').length, 1);
  assert.equal(matching('2.0.0', '!bookTicker').length, 0);
  assert.equal(matching('2.0.0', 'btcusdt@bookTicker').length, 1);
});

test('+08:00 kline streams, seed form and real form: absent at 3.9.0, present from 3.10.0', () => {
  for (const form of ['<symbol>kline_<interval>+08:00', '<symbol>@kline_<interval>@+08:00']) {
    assert.not.ok(streamNames('3.9.0').has(form), `${form} at 3.9.0`);
    assert.ok(streamNames('3.10.0').has(form), `${form} at 3.10.0`);
  }
  assert.equal(matching('3.9.0', 'btcusdt@kline_1m@+08:00').length, 0);
  assert.equal(matching('3.10.0', 'btcusdt@kline_1m@+08:00').map((s) => s.name), ['<symbol>@kline_<interval>@+08:00']);
  assert.equal(matching('3.10.0', 'btcusdtkline_1m+08:00').map((s) => s.name), ['<symbol>kline_<interval>+08:00']);
});

test('ticker window streams from 1.14.0; kline_1s stream only from 1.17.0', () => {
  assert.equal(matching('1.13.0', 'btcusdt@ticker_1h').length, 0);
  assert.equal(matching('1.14.0', 'btcusdt@ticker_1h').map((s) => s.name), ['<symbol>@ticker_<window_size>']);
  assert.equal(matching('1.14.0', '!ticker_4h@arr').map((s) => s.name), ['!ticker_<window_size>@arr']);
  assert.equal(matching('3.12.0', 'btcusdt@ticker_2h').length, 0, 'streams take 1h, 4h, 1d only');
  assert.equal(matching('1.16.0', 'btcusdt@kline_1s').length, 0);
  assert.equal(matching('1.17.0', 'btcusdt@kline_1s').length, 1);
});

test('every stream of the client at 3.12.0 matches exactly one template alive at 3.12.0', () => {
  const names = [...TSV_STREAM_TEMPLATES.flatMap((t) => concrete(t, SAMPLE)), ...TSV_STREAM_TEMPLATES.flatMap((t) => concrete(t, SAMPLE2)),
    // the forms of the TSV's doc_title column
    'btcusdt@depth5', 'btcusdt@depth10@100ms', 'btcusdt@depth', 'btcusdt@depth@100ms'];
  for (const name of names) {
    const m = matching('3.12.0', name);
    assert.is(m.length, 1, `${name} matches ${m.map((s) => s.name).join(', ') || 'nothing'}`);
  }
});

test('templates are unambiguous at every release, and reject malformed names', () => {
  const probes = [
    'btcusdt@aggTrade', 'btcusdt@trade', 'btcusdt@kline_1m', 'btcusdt@kline_1s', 'btcusdt@kline_1m@+08:00', 'btcusdtkline_1m+08:00',
    'btcusdt@miniTicker', '!miniTicker@arr', 'btcusdt@ticker', '!ticker@arr', 'btcusdt@ticker_1h', '!ticker_1d@arr',
    'btcusdt@bookTicker', '!bookTicker', 'btcusdt@depth5', 'btcusdt@depth20@100ms', 'btcusdt@depth', 'btcusdt@depth@1000ms',
    'btcusdt@avgPrice', LISTEN_KEY, 'depth', 'btcusdt',
  ];
  for (const r of exchange.releases) {
    for (const name of probes) {
      const m = matching(r.id, name);
      assert.ok(m.length <= 1, `${name} at ${r.id} matches ${m.map((s) => s.name).join(', ')}`);
    }
  }
  for (const bad of ['BTCUSDT@trade', 'btcusdt@kline_2m', 'btcusdt@depth7', 'btcusdt@depth@250ms', 'btcusdt@depth5@100', 'btcusdt', 'abc']) {
    assert.equal(matching('3.12.0', bad).length, 0, `${bad} should match nothing`);
  }
});

// ------------------------------------------------------------------------------------------------
test('websocket API: nothing before 3.0.0rc1', () => {
  for (const r of ['1.0.0', '1.18.0', '2.0.0-rc1', '2.0.0rc4', '2.0.0']) assert.equal(methodNames(r).size, 0, `methods at ${r}`);
  assert.ok(methodNames('3.0.0rc1').has('order.place'));
  const first = exchange.releases.findIndex((r) => r.id === '3.0.0rc1');
  for (const m of exchange.wsMethods) assert.ok(m.span.added >= first, `${m.name} added before 3.0.0rc1`);
});

test('orderList.place.oto/.otoco/.oco from 3.8.0; orderList.place deprecated at 3.8.0', () => {
  for (const name of ['orderList.place.oto', 'orderList.place.otoco', 'orderList.place.oco']) {
    assert.not.ok(methodNames('3.7.0').has(name), `${name} at 3.7.0`);
    assert.ok(methodNames('3.8.0').has(name), `${name} at 3.8.0`);
  }
  const place = exchange.wsMethods.find((m) => m.name === 'orderList.place')!;
  assert.ok(place);
  assert.is(at('3.7.0').status(place), 'alive');
  assert.is(at('3.8.0').status(place), 'deprecated');
  assert.is(at('3.12.0').status(place), 'deprecated');
  assert.is(place.replacement, 'orderList.place.oco');
});

test('every websocket-API method of the client at 3.12.0 exists at 3.12.0 with the TSV security', () => {
  const view = at('3.12.0');
  for (const [name, security] of Object.entries(TSV_WS_METHODS)) {
    const m = view.wsMethods.find((x) => x.name === name);
    assert.ok(m, `${name} missing at 3.12.0`);
    const scheme = m!.security.find((s) => view.status(s) === 'alive' || view.status(s) === 'deprecated')?.scheme;
    assert.is(scheme, security, `${name} security`);
  }
});

test('klines and uiKlines take timeZone from 3.10.0; enums of websocket parameters exist', () => {
  for (const name of ['klines', 'uiKlines']) {
    const m = exchange.wsMethods.find((x) => x.name === name)!;
    const tz = m.parameters.find((p) => p.name === 'timeZone')!;
    assert.ok(tz, `${name} timeZone`);
    assert.is(at('3.9.0').status(tz), 'not-yet');
    assert.is(at('3.10.0').status(tz), 'alive');
    assert.is(m.parameters.find((p) => p.name === 'interval')?.enum, 'KlineInterval');
  }
  for (const m of exchange.wsMethods) {
    for (const p of m.parameters) if (p.enum) assert.ok(exchange.enums[p.enum], `${m.name}.${p.name}: enum ${p.enum}`);
  }
});

test.run();
