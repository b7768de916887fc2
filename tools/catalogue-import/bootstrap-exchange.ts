// Bootstrap catalogue/exchange/endpoints/*.yaml from the exchange seed and the data files.
//
//   node dist/tools/catalogue-import/bootstrap-exchange.js [--data <dir>] [--seed <file>] [--out <dir>] [--force] [--dry-run]
//
// Defaults: --data <repo>/../shared/data, --seed <repo>/../shared/seeds/exchange-api-catalogue.md,
// --out <repo>/catalogue/exchange/endpoints. Existing YAML files are never overwritten unless --force
// is given: once written, the YAML is the source of truth and hand edits win. Use import-openapi.ts to
// append endpoints to an existing catalogue instead.
//
// How the facts are combined (the seed is authoritative where it speaks):
//   endpoints   every seed line (tags verbatim, section defaults applied), every endpoint of the python
//               client table at 3.12.0 (tsv), and endpoints the CHANGELOG adds or removes that neither
//               names; `added` of tsv-only endpoints from the CHANGELOG's Added lists.
//   security    tsv `security`; else the JS client table at 3.6.1; else older python client releases
//               (exchange-history.ts); else the OpenAPI description.
//   parameters  tsv doc_args/doc_optional_kwargs/required_params (else exchange-history.ts, else OpenAPI),
//               overlaid with OpenAPI enums/minimum/maximum and OpenAPI-only parameters; lifecycles from
//               the seed's Parameter changes table; named enums of enums.yaml where they fit.
//   oddities    seed entries that contradict the client (method or path) are kept exactly as listed and the
//               real endpoint is added next to them, each with a note (ODDITIES below).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Document, isMap, isSeq, parse, type YAMLMap, type YAMLSeq } from 'yaml';
import { loadExchangeSeed, parseTags, repoRoot, type ExchangeSeed } from './seed.js';
import { HISTORY, MARGIN_3_6_0_REPLACEMENTS } from './exchange-history.js';
import { catalogueSchema, operationSecurity, readOpenApi, type OpenApiDocument, type OpenApiParameter } from './openapi.js';

type Scheme = 'NONE' | 'API_KEY' | 'SIGNED';
const SIGNED_PARAMS = new Set(['timestamp', 'signature', 'recvWindow']);

const FILES = {
  tsv: 'exchange-endpoints-3.12.0.tsv',
  js: 'js-connector-3.6.1-rest-methods.tsv',
  openapi: 'binance-spot-api-openapi-v1.22.0.yaml',
  changelog: 'exchange-client-CHANGELOG.md',
};

/** Legend of the short source names used in the generated `source:` fields. */
const LEGEND = [
  'seed = shared/seeds/exchange-api-catalogue.md (authoritative where it speaks)',
  `tsv = ${FILES.tsv} (python client at 3.12.0)`,
  `js = ${FILES.js} (JS client at 3.6.1)`,
  `openapi = ${FILES.openapi}`,
  `changelog = ${FILES.changelog}`,
  'history = older python client releases and other public clients (tools/catalogue-import/exchange-history.ts)',
];

// ---------------------------------------------------------------------------------------------- model

interface Param {
  name: string;
  required: boolean;
  schema: Record<string, unknown>;
  enum?: string;
  added?: string;
  removed?: string;
  description?: string;
  notes: string[];
  sources: string[];
}

interface SecurityEntry { scheme: Scheme; added?: string; removed?: string; note?: string }

interface Entry {
  method: string;
  path: string;
  module: string;
  summary?: string;
  added?: string;
  deprecated?: string;
  removed?: string;
  replacement?: string;
  tags?: string;
  notes: string[];
  sources: string[];
  security?: Scheme | SecurityEntry[];
  params: Param[];
  constraints: { exclusive: string[]; source: string; note?: string }[];
}

const key = (e: { method: string; path: string }) => `${e.method} ${e.path}`;

// ------------------------------------------------------------------------------------------ oddities

/**
 * Seed entries that contradict the client, each with the real endpoint and the notes for both.
 * `realAdded` is the release of the real entry (the seed's entry keeps the seed's tags).
 */
const ODDITIES: { seed: string; real: string; realAdded?: string; seedNote: string; realNote: string }[] = [
  {
    seed: 'POST /sapi/v1/portfolio/interest-history', real: 'GET /sapi/v1/portfolio/interest-history', realAdded: '3.4.0',
    seedNote: 'Method exactly as the seed (and the 3.4.0 CHANGELOG) list it; the client at 3.12.0 (tsv) and the OpenAPI call GET for this path, recorded as the separate entry GET /sapi/v1/portfolio/interest-history. Parameters copied from that entry.',
    realNote: 'Real method of the seed\'s "POST /sapi/v1/portfolio/interest-history [3.4.0]" (tsv and OpenAPI use GET); added in 3.4.0 like the seed\'s entry.',
  },
  {
    seed: 'POST /sapi/v1/portfolio/asset-index-price', real: 'GET /sapi/v1/portfolio/asset-index-price', realAdded: '3.4.0',
    seedNote: 'Method exactly as the seed (and the 3.4.0 CHANGELOG) list it; the client at 3.12.0 (tsv) and the OpenAPI call GET for this path, recorded as the separate entry GET /sapi/v1/portfolio/asset-index-price. Parameters and security copied from that entry.',
    realNote: 'Real method of the seed\'s "POST /sapi/v1/portfolio/asset-index-price [3.4.0]" (tsv and OpenAPI use GET); added in 3.4.0 like the seed\'s entry.',
  },
  {
    seed: 'POST /sapi/v4/sub-account/assets', real: 'GET /sapi/v4/sub-account/assets', realAdded: '3.4.0',
    seedNote: 'Method exactly as the seed (and the 3.4.0 CHANGELOG) list it; the client at 3.12.0 (tsv query_sub_account_assets) and the OpenAPI call GET for this path, recorded as the separate entry GET /sapi/v4/sub-account/assets. Parameters copied from that entry.',
    realNote: 'Real method of the seed\'s "POST /sapi/v4/sub-account/assets [3.4.0]" (tsv and OpenAPI use GET); added in 3.4.0 like the seed\'s entry.',
  },
  {
    seed: 'GET /sapi/v1/margin/max-leverage', real: 'POST /sapi/v1/margin/max-leverage', realAdded: '3.4.0',
    seedNote: 'Method exactly as the seed (and the 3.4.0 CHANGELOG) list it; the client at 3.12.0 (tsv adjust_cross_margin_max_leverage) and the OpenAPI use POST for this path, recorded as the separate entry POST /sapi/v1/margin/max-leverage. Parameters copied from that entry.',
    realNote: 'Real method of the seed\'s "GET /sapi/v1/margin/max-leverage [3.4.0]" (tsv and OpenAPI use POST); added in 3.4.0 like the seed\'s entry.',
  },
  {
    seed: 'GET /v1/managed-subaccount/queryTransLogForInvestor', real: 'GET /sapi/v1/managed-subaccount/queryTransLogForInvestor', realAdded: '2.0.0',
    seedNote: 'Path exactly as the seed (and the 2.0.0 CHANGELOG) list it, without the /sapi prefix; the upstream has no such path. The client calls GET /sapi/v1/managed-subaccount/queryTransLogForInvestor, recorded as a separate entry. Parameters copied from that entry.',
    realNote: 'Real path of the seed\'s "GET /v1/managed-subaccount/queryTransLogForInvestor [2.0.0]" (the seed and the 2.0.0 CHANGELOG drop the /sapi prefix); added in 2.0.0 with the client method managed_sub_account_investor_trans_log.',
  },
  {
    seed: 'GET /v1/managed-subaccount/queryTransLogForTradeParent', real: 'GET /sapi/v1/managed-subaccount/queryTransLogForTradeParent', realAdded: '2.0.0',
    seedNote: 'Path exactly as the seed (and the 2.0.0 CHANGELOG) list it, without the /sapi prefix; the upstream has no such path. The client calls GET /sapi/v1/managed-subaccount/queryTransLogForTradeParent, recorded as a separate entry. Parameters copied from that entry.',
    realNote: 'Real path of the seed\'s "GET /v1/managed-subaccount/queryTransLogForTradeParent [2.0.0]" (the seed and the 2.0.0 CHANGELOG drop the /sapi prefix); added in 2.0.0 with the client method managed_sub_account_trading_trans_log.',
  },
];

/** Further notes, keyed by "METHOD /path". */
const NOTES: Record<string, string[]> = {
  'GET /sapi/v1/loan/flexible/ongoing/order': [
    'Singular path exactly as the seed and the 3.4.0 CHANGELOG list it ("[3.4.0, singular as listed]"). The 3.7.0 removal list names the plural GET /sapi/v1/loan/flexible/ongoing/orders, which is also what the client method flexible_loan_ongoing_orders called; it is the same endpoint, so it is recorded once, at the seed\'s singular path, added 3.4.0 and removed 3.7.0 (no separate plural entry).',
  ],
  'GET /api/v3/rateLimit/order': [
    'The 1.7.0 CHANGELOG writes it "GET api/v3/rateLimit/order", without the leading slash; that is the same endpoint as the seed\'s path (catalogue paths start with /), so there is no separate entry.',
  ],
  'GET /api/v3/exchangeInfo': [
    'The 1.5.0 CHANGELOG writes "GET api/v3/exchangeInfo" (no leading slash) and the client\'s documentation link shows GET /api/v3/exchangeinfo (tsv doc_http_if_different); both are this endpoint.',
  ],
  'GET /api/v3/myTrades': ['The 1.5.0 CHANGELOG writes "GET api/v3/myTrades" (no leading slash); same endpoint.'],
  'POST /api/v3/orderList/oco': [
    'The seed lists it without an added tag, so it has no `added` here; the 3.8.0 CHANGELOG presents it as the new name of the deprecated POST /api/v3/order/oco.',
  ],
  'POST /api/v3/order/oco': [
    'Deprecated in 3.8.0 (seed); the client at 3.12.0 no longer has a method for it and the OpenAPI v1.22.0 does not describe it, so its parameters come from the python client before 3.8.0.',
  ],
  'GET /sapi/v1/asset/wallet/balance': [
    'The client gained its method in 3.5.0 (seed tag, CHANGELOG 3.5.0); the seed gives no added tag, so no `added` here.',
  ],
  'GET /sapi/v1/loan/ongoing/orders': ['Tag text kept exactly as the seed writes it (its bracket is closed by a parenthesis).'],
  'GET /sapi/v1/sub-account/futures/accountSummary': [
    'Path as the seed and the 3.4.0 CHANGELOG list it (v1). At 3.12.0 both client methods for futures account summaries (tsv sub_account_futures_account_summary, summary_of_sub_account_s_futures_account) call GET /sapi/v2/sub-account/futures/accountSummary; the v1 path exists in the OpenAPI and the JS client 3.6.1, so it is kept alive.',
  ],
  'GET /sapi/v2/sub-account/futures/accountSummary': [
    'Two client methods call this path at 3.12.0 (sub_account_futures_account_summary and summary_of_sub_account_s_futures_account, the latter introduced for the seed\'s v1 "GET /sapi/v1/sub-account/futures/accountSummary [3.4.0]").',
  ],
  'POST /sapi/v1/simple-earn/locked/setRedeemOption': [
    'The OpenAPI v1.22.0 describes GET for this path; the seed, the CHANGELOG and the client use POST, which is recorded.',
  ],
  'GET /sapi/v1/margin/tradeCoeff': ['Added in 2.0.0rc3 per the CHANGELOG (the seed omits that release and this endpoint).'],
  'GET /sapi/v1/managed-subaccount/queryTransLogForInvestor': [
    'The client\'s documentation link for this method shows GET /sapi/v1/managed-subaccount/transfer/history (tsv doc_http_if_different); the client calls this path.',
  ],
};

/** CHANGELOG names of endpoints the catalogue records under another (the seed's) name. */
const CHANGELOG_ALIASES: Record<string, string> = {
  'GET /sapi/v1/loan/flexible/ongoing/orders': 'GET /sapi/v1/loan/flexible/ongoing/order',
};

/** Replacements known from the seed's prose (beyond "in favour of" tags). */
const REPLACEMENTS: Record<string, { replacement: string; source: string }> = {
  'POST /sapi/v1/sub-account/subAccountApi/ipRestriction': { replacement: 'POST /sapi/v2/sub-account/subAccountApi/ipRestriction', source: 'seed Versioning 3.0.0rc2 ("replaced by a v2 endpoint")' },
  'POST /sapi/v1/sub-account/subAccountApi/ipRestriction/ipList': { replacement: 'POST /sapi/v2/sub-account/subAccountApi/ipRestriction', source: 'seed Versioning 3.0.0rc2 ("replaced by a v2 endpoint")' },
  ...Object.fromEntries(Object.entries(MARGIN_3_6_0_REPLACEMENTS).map(([k, r]) => [k, {
    replacement: r,
    source: r.includes('borrow-repay')
      ? 'seed Versioning 3.6.0 ("margin transfer, loan and repay endpoints replaced by borrow-repay")'
      : 'the exchange\'s margin change log of 2024-03 (public docs), which names the successor of each removed margin endpoint',
  }])),
};

/** Client parameter names that are typos of the real names (the OpenAPI's). */
const TYPOS: Record<string, Record<string, string>> = {
  'GET /api/v3/historicalTrades': { formId: 'fromId' },
  'GET /api/v3/aggTrades': { formId: 'fromId' },
  'GET /sapi/v1/margin/myTrades': { fromID: 'fromId' },
  'POST /sapi/v1/convert/limit/placeOrder': { quotrAmount: 'quoteAmount' },
};

/** Constraints from the tsv argument_errors column. */
const CONSTRAINTS: Record<string, string[][]> = {
  'GET /api/v3/exchangeInfo': [['symbol', 'symbols'], ['permissions', 'symbol'], ['permissions', 'symbols']],
  'GET /api/v3/ticker/24hr': [['symbol', 'symbols']],
  'GET /api/v3/ticker/tradingDay': [['symbol', 'symbols']],
  'GET /api/v3/ticker/price': [['symbol', 'symbols']],
  'GET /api/v3/ticker/bookTicker': [['symbol', 'symbols']],
  'GET /api/v3/ticker': [['symbol', 'symbols']],
  'GET /sapi/v1/margin/allOrderList': [['fromId', 'startTime'], ['fromId', 'endTime']],
};

/** Parameter lifecycles and facts the seed states outside its Parameter changes table's endpoint column. */
const PARAMETER_FACTS: { key: string; name: string; added?: string; split?: { at: string; before: boolean; after: boolean }; source: string; note?: string; type?: string }[] = [
  { key: 'GET /sapi/v1/lending/daily/product/list', name: 'current', added: '1.1.0', source: 'seed tag "(took parameters current and size since 1.1.0)"; changelog 1.1.0' },
  { key: 'GET /sapi/v1/lending/daily/product/list', name: 'size', added: '1.1.0', source: 'seed tag "(took parameters current and size since 1.1.0)"; changelog 1.1.0' },
  {
    key: 'GET /sapi/v1/lending/daily/token/position', name: 'asset', split: { at: '1.14.0', before: true, after: false },
    source: 'seed Parameter changes ("savings flexible product position (client method) | asset | made optional (1.14.0)"); changelog 1.14.0 #146',
  },
  {
    key: 'GET /sapi/v1/lending/project/position/list', name: 'asset', split: { at: '1.16.0', before: true, after: false },
    source: 'seed tag "(asset parameter optional since 1.16.0)"; changelog 1.16.0',
  },
];

/** Minimum of strategy types: seed Resources and Limits 1. */
const STRATEGY_TYPES: Record<string, string[]> = {
  'POST /api/v3/order': ['strategyType'],
  'POST /api/v3/order/cancelReplace': ['strategyType'],
  'POST /api/v3/order/oco': ['limitStrategyType', 'stopStrategyType'],
};

const ORDER_ENDPOINTS = new Set([
  'POST /api/v3/order', 'POST /api/v3/order/test', 'POST /api/v3/order/cancelReplace', 'POST /api/v3/order/oco',
  'POST /api/v3/orderList/oco', 'POST /api/v3/orderList/oto', 'POST /api/v3/orderList/otoco',
  'POST /sapi/v1/margin/order', 'POST /sapi/v1/margin/order/oco', 'POST /sapi/v1/margin/order/oto', 'POST /sapi/v1/margin/order/otoco',
]);

/** The named enum (enums.yaml) a parameter takes, if one fits. */
function namedEnum(k: string, name: string): string | undefined {
  if (ORDER_ENDPOINTS.has(k)) {
    if (/^(side|workingSide|pendingSide)$/.test(name)) return 'OrderSide';
    if (/^(type|workingType|pendingType|pendingAboveType|pendingBelowType|aboveType|belowType)$/.test(name)) return 'OrderType';
    if (/TimeInForce$|^timeInForce$/.test(name)) return 'TimeInForce';
  }
  if (k === 'POST /sapi/v1/convert/limit/placeOrder' && name === 'side') return 'OrderSide';
  if (name === 'newOrderRespType') return 'NewOrderRespType';
  if (name === 'selfTradePreventionMode') return 'SelfTradePreventionMode';
  if (name === 'orderRateLimitExceededMode') return 'OrderRateLimitExceededMode';
  if (name === 'cancelRestrictions') return 'CancelRestrictions';
  if (name === 'sideEffectType') return 'SideEffectType';
  if (name === 'interval' && /^GET \/api\/v3\/(klines|uiKlines)$/.test(k)) return 'KlineInterval';
  if (name === 'type' && /^GET \/api\/v3\/ticker(\/24hr|\/tradingDay)?$/.test(k)) return 'TickerType';
  if (name === 'windowSize' && /^GET \/api\/v3\/ticker(\/tradingDay)?$/.test(k)) return 'TickerWindowSize';
  if (k === 'GET /api/v3/exchangeInfo' && name === 'permissions') return 'Permission';
  if (k === 'GET /api/v3/exchangeInfo' && name === 'symbolStatus') return 'SymbolStatus';
  if (name === 'accountType' && ['POST /sapi/v1/asset/dust', 'POST /sapi/v1/asset/dust-btc', 'GET /sapi/v1/asset/dribblet'].includes(k)) return 'DustAccountType';
  if (name === 'type' && /^(GET|POST) \/sapi\/v1\/asset\/transfer$/.test(k)) return 'TransferType';
  if (name === 'limit' && k === 'GET /api/v3/depth') return 'DepthLimit';
  return undefined;
}

const MODULE_TITLES: Record<string, string> = {
  market: 'Market data', trade: 'Spot trading and account', margin: 'Margin trading', wallet: 'Wallet and assets',
  'sub-account': 'Sub-accounts', 'managed-sub-account': 'Managed sub-accounts', 'portfolio-margin': 'Portfolio margin',
  convert: 'Convert', 'simple-earn': 'Simple Earn', staking: 'Staking', 'crypto-loan': 'Crypto loans (module "Loan" until 3.4.0)',
  lending: 'Savings / lending (deleted in 3.4.0)', futures: 'Futures transfers and cross-collateral loans (all removed)',
  blvt: 'Leveraged tokens (removed in 3.9.0)', bswap: 'Swap pools (removed in 3.7.0)', 'gift-card': 'Gift cards',
  'auto-invest': 'Auto-Invest', fiat: 'Fiat', c2c: 'C2C', pay: 'Pay', rebate: 'Rebate', mining: 'Mining', nft: 'NFT',
  'data-stream': 'User data streams (listen keys)',
};

function moduleOf(path: string, tsvModule?: string): string {
  if (path.includes('/managed-subaccount/')) return 'managed-sub-account';
  if (tsvModule) return tsvModule.replace(/^_/, '').replace(/\.py$/, '').replaceAll('_', '-');
  const rules: [RegExp, string][] = [
    [/^\/api\/v3\/(klines|uiKlines|ticker|depth|trades|historicalTrades|aggTrades|avgPrice|ping|time|exchangeInfo)/, 'market'],
    [/^\/api\/v3\//, 'trade'], [/^\/sapi\/v\d\/margin\//, 'margin'], [/^\/sapi\/v\d\/staking\//, 'staking'],
    [/^\/sapi\/v\d\/loan\//, 'crypto-loan'], [/^\/sapi\/v\d\/lending\//, 'lending'], [/^\/sapi\/v\d\/futures\//, 'futures'],
    [/^\/sapi\/v\d\/blvt\//, 'blvt'], [/^\/sapi\/v\d\/bswap\//, 'bswap'], [/^\/sapi\/v\d\/(asset|capital|account|localentity|spot)\//, 'wallet'],
    [/^\/sapi\/v\d\/sub-account\//, 'sub-account'], [/^\/sapi\/v\d\/portfolio\//, 'portfolio-margin'],
  ];
  for (const [re, m] of rules) if (re.test(path)) return m;
  throw new Error(`no module for ${path}`);
}

// ------------------------------------------------------------------------------------------ readers

function readTsv(file: string): Record<string, string>[] {
  const [head, ...lines] = readFileSync(file, 'utf8').split(/\r?\n/).filter((l) => l.length);
  const cols = head.split('\t');
  return lines.map((l) => Object.fromEntries(l.split('\t').map((v, i) => [cols[i], v])));
}

interface ChangelogItem { release: string; kind: string; method: string; path: string; text: string }

/** Endpoint mentions of the CHANGELOG with their release and section kind (Added, Removed, Deleted, …). */
export function parseChangelog(text: string): ChangelogItem[] {
  const out: ChangelogItem[] = [];
  let release = '';
  let kind = '';
  for (const line of text.split(/\r?\n/)) {
    const r = /^## ([0-9][^ ]*) - /.exec(line);
    if (r) { release = r[1]; kind = ''; continue; }
    const k = /^### (\w+)/.exec(line);
    if (k) { kind = k[1]; continue; }
    for (const m of line.matchAll(/`(GET|POST|PUT|DELETE) ?(\/?(?:sapi|api|v1)\/[^`\s]*)`/g)) {
      out.push({ release, kind, method: m[1], path: m[2].startsWith('/') ? m[2] : `/${m[2]}`, text: line.trim() });
    }
  }
  return out;
}

// ------------------------------------------------------------------------------------------ builder

const TYPE_OF: Record<string, string> = { str: 'string', int: 'integer', float: 'number', bool: 'boolean', boolean: 'boolean', list: 'string', array: 'string' };

/** "name:type,name:type?" (tsv doc_args style) → parameters; `required` overrides the ? marks when given. */
function parseArgList(list: string, source: string, required?: Set<string>): Param[] {
  const out: Param[] = [];
  for (const part of list.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [rawName, rawType = ''] = part.split(':');
    const optional = rawType.endsWith('?');
    const t = rawType.replace(/\?$/, '');
    const name = rawName.trim();
    if (SIGNED_PARAMS.has(name)) continue;
    const notes: string[] = [];
    if (t === 'list' || t === 'array') notes.push('a list: send it as JSON array text (or comma-separated where the exchange accepts that)');
    out.push({
      name, required: required ? required.has(name) : !optional,
      schema: { type: TYPE_OF[t] ?? 'string' }, notes, sources: [source],
      ...(t && !TYPE_OF[t] ? { description: `client type ${t}` } : {}),
    });
  }
  return out;
}

class Builder {
  entries = new Map<string, Entry>();
  report: string[] = [];
  private tsvRows = new Map<string, Record<string, string>[]>();
  private jsRows = new Map<string, Record<string, string>>();
  private changelog: ChangelogItem[];

  constructor(
    private seed: ExchangeSeed,
    tsv: Record<string, string>[],
    js: Record<string, string>[],
    private openapi: OpenApiDocument,
    changelogText: string,
    private releaseIds: string[],
  ) {
    for (const r of tsv) this.tsvRows.set(`${r.http_method} ${r.path}`, [...(this.tsvRows.get(`${r.http_method} ${r.path}`) ?? []), r]);
    for (const r of js) this.jsRows.set(`${r.http_method} ${r.path}`, r);
    this.changelog = parseChangelog(changelogText).map((c) => {
      if (!releaseIds.includes(c.release)) throw new Error(`CHANGELOG release ${c.release} is not in releases.yaml`);
      const alias = CHANGELOG_ALIASES[`${c.method} ${c.path}`];
      return alias ? { ...c, method: alias.split(' ')[0], path: alias.split(' ')[1] } : c;
    });
  }

  private entry(method: string, path: string, init: Partial<Entry> = {}): Entry {
    const k = `${method} ${path}`;
    let e = this.entries.get(k);
    if (!e) {
      const tsvModule = this.tsvRows.get(k)?.[0]?.module;
      e = { method, path, module: moduleOf(path, tsvModule), notes: [], sources: [], params: [], constraints: [], ...init };
      this.entries.set(k, e);
    }
    return e;
  }

  build(): Entry[] {
    // 1. the seed, exactly as listed
    for (const s of this.seed.endpoints) {
      const e = this.entry(s.method, s.path);
      if (e.sources.includes('seed')) throw new Error(`seed lists ${key(s)} twice`);
      Object.assign(e, {
        ...(s.added ? { added: s.added } : {}), ...(s.removed ? { removed: s.removed } : {}),
        ...(s.deprecated ? { deprecated: s.deprecated } : {}), ...(s.replacement ? { replacement: s.replacement } : {}),
        ...(s.tags ? { tags: s.tags } : {}),
      });
      e.sources.push('seed');
      const own = parseTags(s.tags);
      if (s.added && !own.added) e.notes.push(`Added in ${s.added}: the default of the seed section "${s.section}" (the line has no added tag of its own).`);
      if (s.removed && !own.removed) e.notes.push(`Removed in ${s.removed}: the default of the seed section "${s.section}" (the line has no removal tag of its own).`);
    }
    // 2. the client at 3.12.0
    const addedBy = this.changelogAdds();
    for (const [k, rows] of this.tsvRows) {
      const [method, path] = [rows[0].http_method, rows[0].path];
      const known = this.entries.has(k);
      const e = this.entry(method, path);
      e.sources.push('tsv');
      if (!known) {
        const odd = ODDITIES.find((o) => o.real === k);
        const added = odd?.realAdded ?? addedBy.get(k)?.release;
        if (added) {
          e.added = added;
          e.sources.push(odd ? 'seed (release of the listed twin)' : `changelog ${added} ${addedBy.get(k)!.why}`);
        }
      }
    }
    // 3. endpoints the CHANGELOG adds or removes that neither the seed nor the client table names
    for (const c of this.changelog) {
      const k = `${c.method} ${c.path}`;
      if (this.entries.has(k)) continue;
      if (c.kind === 'Removed' || c.kind === 'Deleted') {
        const e = this.entry(c.method, c.path, { removed: c.release });
        e.sources.push(`changelog ${c.release} ${c.kind}`);
        e.notes.push(`Removed in ${c.release} per the CHANGELOG ("${c.text.replace(/^- /, '')}"); the seed does not list it${c.release === '2.0.0rc3' ? ' (it omits 2.0.0rc3)' : ''}, and its introduction is not shown, so it has no \`added\`.`);
      } else if (c.kind === 'Added') {
        this.report.push(`CHANGELOG adds ${k} in ${c.release}, unknown to seed and tsv: not added (check by hand)`);
      }
    }
    // 4. facts per endpoint
    for (const e of this.entries.values()) this.fill(e);
    // 5. the seed's twins of real endpoints take the real one's security and parameters
    for (const o of ODDITIES) {
      const s = this.entries.get(o.seed), r = this.entries.get(o.real);
      if (!s || !r) throw new Error(`oddity ${o.seed} / ${o.real}: both must exist`);
      s.notes.unshift(o.seedNote);
      r.notes.unshift(o.realNote);
      s.module = r.module;
      s.summary = r.summary;
      if (!s.security) s.security = r.security;
      if (!s.params.length) s.params = r.params.map((p) => ({ ...p, notes: [...p.notes], sources: [...p.sources] }));
      s.sources.push(`security and parameters copied from ${o.real}`);
    }
    this.applyParameterLifecycles();
    this.checkAgainstChangelog();
    for (const e of this.entries.values()) {
      if (!e.security) throw new Error(`no security known for ${key(e)}`);
    }
    return [...this.entries.values()];
  }

  /** First release whose CHANGELOG Added section names an endpoint ("All Auto-Invest endpoints" included). */
  private changelogAdds(): Map<string, { release: string; why: string }> {
    const out = new Map<string, { release: string; why: string }>();
    for (const c of this.changelog) {
      const k = `${c.method} ${c.path}`;
      if (c.kind === 'Added' && !out.has(k)) out.set(k, { release: c.release, why: 'Added' });
    }
    for (const k of this.tsvRows.keys()) {
      if (k.includes('/sapi/v1/lending/auto-invest/') && !out.has(k)) out.set(k, { release: '3.4.0', why: 'Added "All Auto-Invest endpoints"' });
    }
    return out;
  }

  private fill(e: Entry): void {
    const k = key(e);
    const rows = this.tsvRows.get(k);
    const row = rows?.[0];
    const hist = HISTORY[k];
    const op = this.openapi.byKey.get(k);
    const js = this.jsRows.get(k);
    // summary
    e.summary = row?.doc_title || hist?.summary || op?.summary?.trim() || e.summary;
    if (rows && rows.length > 1) e.sources.push(`tsv rows ${rows.map((r) => r.method_name).join(', ')}`);
    // security
    if (k === 'GET /api/v3/historicalTrades') {
      e.security = [
        { scheme: 'API_KEY', removed: '3.2.0', note: 'API key required before 3.2.0 (seed tag; changelog 3.2.0)' },
        { scheme: 'NONE', added: '3.2.0', note: 'seed Authentication 2: no API key since 3.2.0; tsv security NONE' },
      ];
    } else if (row) {
      e.security = row.security === 'SIGNED' ? 'SIGNED' : row.security === 'NONE' ? 'NONE' : 'API_KEY';
    } else if (js) {
      e.security = js.signed === 'signed' ? 'SIGNED' : 'NONE';
      e.sources.push('js (security)');
    } else if (hist) {
      e.security = hist.security;
    } else if (op) {
      e.security = operationSecurity(op, this.openapi.securitySchemes);
    }
    // parameters
    const typos = TYPOS[k] ?? {};
    let params: Param[] = [];
    if (row) {
      const required = new Set(row.required_params.split(',').filter(Boolean));
      params = [...parseArgList(row.doc_args, 'tsv doc_args', required), ...parseArgList(row.doc_optional_kwargs, 'tsv doc_optional_kwargs', required)];
      for (const r of required) {
        if (!params.some((p) => p.name === r) && !SIGNED_PARAMS.has(r)) params.push({ name: r, required: true, schema: { type: 'string' }, notes: [], sources: ['tsv required_params'] });
      }
      if (row.conditional_required) {
        const m = /^(\w+) required if kwargs\.get\('(\w+)'\)/.exec(row.conditional_required);
        const p = m && params.find((x) => x.name === m[1]);
        if (p) p.notes.push(`required when ${m![2]} is sent (tsv conditional_required)`);
      }
    } else if (hist) {
      params = parseArgList(hist.params, 'history');
      e.sources.push(`history: ${hist.source}`);
      if (hist.note) e.notes.push(hist.note);
    }
    const seen = new Map<string, Param>();
    for (const p of params) {
      const fixed = typos[p.name];
      if (fixed) {
        p.notes.push(`the client documents it as "${p.name}", a typo of the real name (OpenAPI)`);
        p.name = fixed;
      }
      if (seen.has(p.name)) continue; // duplicated in doc_args and doc_optional_kwargs
      seen.set(p.name, p);
    }
    params = [...seen.values()];
    if (op) {
      e.sources.push('openapi');
      for (const oaParam of op.parameters) {
        if (SIGNED_PARAMS.has(oaParam.name) || oaParam.in !== 'query') continue;
        const p = seen.get(oaParam.name);
        if (p) this.overlay(p, oaParam);
        else {
          const clientKnows = !!(row || hist);
          const np: Param = {
            name: oaParam.name, required: !!oaParam.required && !clientKnows, schema: catalogueSchema(oaParam.schema), notes: [],
            sources: ['openapi'],
          };
          if (clientKnows) {
            np.notes.push(`in the OpenAPI only (the client documents no such parameter${oaParam.required ? ', so the OpenAPI\'s "required" is not enforced' : ''})`);
          }
          params.push(np);
          seen.set(np.name, np);
        }
      }
    }
    // named enums, strategy minimums
    for (const p of params) {
      const en = namedEnum(k, p.name);
      if (en) {
        p.enum = en;
        if (p.schema.type !== 'string' && en === 'DepthLimit') {
          p.notes.push(`the OpenAPI types it ${JSON.stringify(p.schema)}; the values the client documents (enum DepthLimit, compared as text) are used instead`);
        }
        p.schema = { type: 'string' };
        p.sources.push(`enums.yaml ${en}`);
      }
      if (STRATEGY_TYPES[k]?.includes(p.name)) {
        p.schema = { ...p.schema, type: 'integer', minimum: 1000000 };
        p.sources.push('seed Limits 1 (minimum 1000000)');
      }
      if (k === 'GET /api/v3/exchangeInfo' && p.name === 'permissions') {
        p.description = 'a permission name (SPOT) or a JSON list of names (["MARGIN","LEVERAGED"]); default ["SPOT","MARGIN","LEVERAGED"] (seed Resources)';
      }
    }
    e.params = params;
    for (const ex of CONSTRAINTS[k] ?? []) e.constraints.push({ exclusive: ex, source: 'tsv argument_errors' + (k === 'GET /api/v3/exchangeInfo' && ex.includes('permissions') ? '; seed Resources ("cannot be combined with symbol or symbols")' : '') });
    // lifecycle prose
    const rep = REPLACEMENTS[k];
    if (rep && !e.replacement) {
      e.replacement = rep.replacement;
      e.sources.push(`replacement: ${rep.source}`);
    }
    e.notes.push(...(NOTES[k] ?? []));
  }

  /** Reconcile a client parameter with the OpenAPI's: enums and limits from the OpenAPI, the more permissive type. */
  private overlay(p: Param, o: OpenApiParameter): void {
    const s = catalogueSchema(o.schema);
    const mine = p.schema.type as string;
    const theirs = s.type as string;
    let type = mine;
    if (mine !== theirs) {
      type = mine === 'string' || theirs === 'string' || mine === 'boolean' || theirs === 'boolean' ? 'string' : 'number';
      p.notes.push(`type: the client says ${mine}, the OpenAPI ${theirs}; kept ${type}`);
    }
    const extra = Object.fromEntries(Object.entries(s).filter(([k2]) => k2 !== 'type'));
    if (Object.keys(extra).length && type === theirs) {
      p.schema = { type, ...extra };
      p.sources.push(`openapi ${Object.keys(extra).join('/')}`);
    } else p.schema = { type };
    if (!!o.required !== p.required) p.notes.push(`the OpenAPI marks it ${o.required ? 'required' : 'optional'}; the client's check is kept`);
    if (!p.sources.includes('openapi') && !p.sources.some((x) => x.startsWith('openapi'))) p.sources.push('openapi');
  }

  /** The seed's Parameter changes table (and PARAMETER_FACTS) as parameter lifecycles. */
  private applyParameterLifecycles(): void {
    const facts: typeof PARAMETER_FACTS = [...PARAMETER_FACTS];
    for (const row of this.seed.parameterChanges) {
      if (!row.release || !row.endpoints.length) {
        this.report.push(`seed Parameter changes row without endpoint/release handled by hand or service.yaml: ${row.endpointText} | ${row.parameters.join(', ')} | ${row.change}`);
        continue;
      }
      if (/new value/.test(row.change)) {
        this.report.push(`seed Parameter changes row about enum values (enums.yaml): ${row.endpointText} | ${row.change}`);
        continue;
      }
      for (const k of row.endpoints) for (const name of row.parameters) {
        facts.push({ key: k, name, added: row.release, source: `seed Parameter changes ("${row.change}")` });
      }
    }
    for (const f of facts) {
      const e = this.entries.get(f.key);
      if (!e) throw new Error(`parameter fact for unknown endpoint ${f.key}`);
      let p = e.params.find((x) => x.name === f.name);
      if (!p) {
        p = { name: f.name, required: false, schema: { type: f.type ?? 'string' }, notes: ['named by the seed; the client table at 3.12.0 does not list it'], sources: [] };
        e.params.push(p);
      }
      p.sources.unshift(f.source);
      if (f.added) p.added = f.added;
      if (f.split) {
        const idx = e.params.indexOf(p);
        const before: Param = { ...p, required: f.split.before, removed: f.split.at, notes: [...p.notes, `${f.split.before ? 'required' : 'optional'} before ${f.split.at}`], sources: [...p.sources] };
        const after: Param = { ...p, required: f.split.after, added: f.split.at, notes: [...p.notes, `${f.split.after ? 'required' : 'optional'} since ${f.split.at}`], sources: [...p.sources] };
        e.params.splice(idx, 1, before, after);
      }
    }
  }

  /** Report where the CHANGELOG and the catalogue disagree (for review; the seed wins). */
  private checkAgainstChangelog(): void {
    for (const c of this.changelog) {
      const e = this.entries.get(`${c.method} ${c.path}`);
      if (!e) continue;
      if (c.kind === 'Added' && e.added !== c.release) this.report.push(`CHANGELOG adds ${key(c)} in ${c.release}; catalogue added=${e.added ?? '(none)'}`);
      if ((c.kind === 'Removed' || c.kind === 'Deleted') && e.removed !== c.release) this.report.push(`CHANGELOG removes ${key(c)} in ${c.release}; catalogue removed=${e.removed ?? '(none)'}`);
    }
  }
}

// ------------------------------------------------------------------------------------------ output

function paramOut(p: Param): Record<string, unknown> {
  const type = p.schema.type;
  const schema = p.enum && type === 'string' && Object.keys(p.schema).length === 1 ? undefined : p.schema;
  return {
    name: p.name,
    ...(p.required ? { required: true } : {}),
    ...(schema && !(Object.keys(schema).length === 1 && type === 'string') ? { schema } : {}),
    ...(p.enum ? { enum: p.enum } : {}),
    ...(p.added ? { added: p.added } : {}),
    ...(p.removed ? { removed: p.removed } : {}),
    ...(p.description ? { description: p.description } : {}),
    ...(p.notes.length ? { note: p.notes.join('; ') } : {}),
    source: [...new Set(p.sources)].join('; '),
  };
}

function entryOut(e: Entry): Record<string, unknown> {
  return {
    method: e.method, path: e.path,
    ...(e.added ? { added: e.added } : {}), ...(e.deprecated ? { deprecated: e.deprecated } : {}),
    ...(e.removed ? { removed: e.removed } : {}), ...(e.replacement ? { replacement: e.replacement } : {}),
    ...(e.tags ? { tags: e.tags } : {}), ...(e.summary ? { summary: e.summary } : {}),
    ...(e.notes.length ? { note: e.notes.join(' ') } : {}),
    source: [...new Set(e.sources)].join('; '),
    security: e.security,
    ...(e.params.length ? { parameters: e.params.map(paramOut) } : {}),
    ...(e.constraints.length ? { constraints: e.constraints } : {}),
  };
}

/** One module file as YAML text: parameters, schemas, constraints and security entries in flow style when short. */
export function moduleYaml(module: string, entries: Entry[]): string {
  const doc = new Document({
    module, title: MODULE_TITLES[module] ?? module,
    source: 'generated by tools/catalogue-import/bootstrap-exchange.ts, then hand-edited; the YAML is the source of truth',
    endpoints: [],
  });
  doc.commentBefore = [
    ` Endpoints of module "${module}". Sources named in source: fields:`,
    ...LEGEND.map((l) => `   ${l}`),
    ' timestamp, signature and recvWindow are added to every SIGNED endpoint by service.yaml.',
  ].join('\n');
  const seq = doc.get('endpoints', true) as YAMLSeq;
  entries.forEach((e, i) => {
    const node = doc.createNode(entryOut(e)) as YAMLMap;
    if (i > 0) node.spaceBefore = true;
    const flowShort = (n: unknown, limit: number) => {
      if (!isMap(n)) return;
      const s = n.get('schema', true);
      if (isMap(s)) s.flow = true;
      if (JSON.stringify(n.toJSON()).length <= limit) n.flow = true;
    };
    for (const field of ['parameters', 'constraints', 'security']) {
      const list = node.get(field, true);
      if (isSeq(list)) for (const item of list.items) flowShort(item, field === 'constraints' ? 200 : 110);
    }
    seq.add(node);
  });
  return doc.toString({ lineWidth: 0 });
}

// ------------------------------------------------------------------------------------------ main

export interface BootstrapOptions { data: string; seed?: string; out: string; force?: boolean; dryRun?: boolean }

export function bootstrapExchange(opts: BootstrapOptions): { files: Record<string, number>; report: string[]; entries: Entry[] } {
  const seed = loadExchangeSeed(opts.seed);
  const releasesFile = join(opts.out, '..', 'releases.yaml');
  const releaseIds = ((parse(readFileSync(releasesFile, 'utf8')) as { releases: { id: string }[] }).releases).map((r) => String(r.id));
  const builder = new Builder(
    seed, readTsv(join(opts.data, FILES.tsv)), readTsv(join(opts.data, FILES.js)), readOpenApi(join(opts.data, FILES.openapi)),
    readFileSync(join(opts.data, FILES.changelog), 'utf8'), releaseIds,
  );
  const entries = builder.build();
  const byModule = new Map<string, Entry[]>();
  for (const e of entries) byModule.set(e.module, [...(byModule.get(e.module) ?? []), e]);
  const files: Record<string, number> = {};
  const texts = new Map<string, string>();
  for (const [module, list] of [...byModule].sort(([a], [b]) => a.localeCompare(b))) {
    const file = join(opts.out, `${module}.yaml`);
    files[file] = list.length;
    texts.set(file, moduleYaml(module, list));
  }
  const clash = [...texts.keys()].filter((f) => existsSync(f));
  if (clash.length && !opts.force && !opts.dryRun) {
    throw new Error(`refusing to overwrite existing YAML (the YAML is the source of truth; pass --force to replace it):\n  ${clash.join('\n  ')}`);
  }
  if (!opts.dryRun) {
    mkdirSync(opts.out, { recursive: true });
    for (const [file, text] of texts) writeFileSync(file, text);
  }
  return { files, report: builder.report, entries };
}

function main(argv: string[]): number {
  const get = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const known = ['--data', '--seed', '--out', '--force', '--dry-run'];
  const bad = argv.filter((a, i) => a.startsWith('--') ? !known.includes(a) : !['--data', '--seed', '--out'].includes(argv[i - 1]));
  if (bad.length) {
    console.error(`unknown arguments: ${bad.join(' ')}\nusage: node dist/tools/catalogue-import/bootstrap-exchange.js [--data <dir>] [--seed <file>] [--out <dir>] [--force] [--dry-run]`);
    return 2;
  }
  const root = repoRoot();
  const result = bootstrapExchange({
    data: resolve(get('data') ?? join(root, '..', 'shared', 'data')),
    seed: get('seed') ? resolve(get('seed')!) : undefined,
    out: resolve(get('out') ?? join(root, 'catalogue', 'exchange', 'endpoints')),
    force: argv.includes('--force'), dryRun: argv.includes('--dry-run'),
  });
  for (const line of result.report) console.log(`note: ${line}`);
  for (const [file, n] of Object.entries(result.files)) console.log(`${argv.includes('--dry-run') ? 'would write' : 'wrote'} ${file} (${n} endpoints)`);
  console.log(`${result.entries.length} endpoints in ${Object.keys(result.files).length} files`);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (e) {
    console.error(`error: ${(e as Error).message}`);
    process.exitCode = 1;
  }
}
