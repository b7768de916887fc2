// A stand-in for today's exchange, run as its own process by the version-change tests: it
// implements only the newest surface of the margin calls an old client makes (each written here
// from the exchange's documentation, not from the catalogue), answers 404 for anything else,
// verifies HMAC signatures with the one secret it is given, and refuses a request missing a
// parameter the operation requires. It records every request (GET /__records).
//   node dist/test/versions/newest-upstream.js '<apiKey>' '<secret>'   → prints "port <n>"
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const [apiKey, secret] = process.argv.slice(2);

interface Operation {
  signed: boolean;
  /** Every request must send these; the function checks what depends on other values. */
  required: string[];
  check?(p: URLSearchParams): string | undefined;
  answer(p: URLSearchParams): unknown;
}

// The exchange's documentation: "Margin account borrow/repay(MARGIN)", "User Universal Transfer",
// "Get All Margin Assets", "Get All Cross Margin Pairs", "Get All Isolated Margin Symbol".
const OPERATIONS: Record<string, Operation> = {
  'POST /sapi/v1/margin/borrow-repay': {
    signed: true, required: ['asset', 'isIsolated', 'amount', 'type', 'timestamp'],
    check: (p) => (!['BORROW', 'REPAY'].includes(p.get('type')!) ? 'type must be BORROW or REPAY'
      : p.get('isIsolated') === 'TRUE' && !p.get('symbol') ? 'symbol is required for isolated margin' : undefined),
    answer: () => ({ tranId: 100000001 }),
  },
  'POST /sapi/v1/asset/transfer': {
    signed: true, required: ['type', 'asset', 'amount', 'timestamp'],
    check: (p) => {
      const t = p.get('type')!;
      if (!/^[A-Z_]+$/.test(t)) return `type ${t} is not a universal transfer type`;
      if ((t === 'ISOLATED_MARGIN_MAIN' || t.startsWith('ISOLATEDMARGIN_')) && !p.get('fromSymbol')) return 'fromSymbol is required';
      if ((t === 'MAIN_ISOLATED_MARGIN' || t.endsWith('_ISOLATEDMARGIN')) && !p.get('toSymbol')) return 'toSymbol is required';
      return undefined;
    },
    answer: () => ({ tranId: 13526853623 }),
  },
  'GET /sapi/v1/margin/allAssets': {
    signed: false, required: [],
    answer: (p) => [{ assetFullName: 'Bitcoin', assetName: 'BTC', isBorrowable: true, isMortgageable: true, userMinBorrow: '0', userMinRepay: '0' },
      { assetFullName: 'Tether', assetName: 'USDT', isBorrowable: true, isMortgageable: true, userMinBorrow: '0', userMinRepay: '0' }]
      .filter((a) => !p.get('asset') || a.assetName === p.get('asset')),
  },
  'GET /sapi/v1/margin/allPairs': {
    signed: false, required: [],
    answer: (p) => [{ id: 351637150141315861, symbol: 'BNBBTC', base: 'BNB', quote: 'BTC', isMarginTrade: true, isBuyAllowed: true, isSellAllowed: true },
      { id: 351637150141315862, symbol: 'BTCUSDT', base: 'BTC', quote: 'USDT', isMarginTrade: true, isBuyAllowed: true, isSellAllowed: true }]
      .filter((a) => !p.get('symbol') || a.symbol === p.get('symbol')),
  },
  'GET /sapi/v1/margin/isolated/allPairs': {
    signed: true, required: ['timestamp'],
    answer: (p) => [{ symbol: 'BTCUSDT', base: 'BTC', quote: 'USDT', isMarginTrade: true, isBuyAllowed: true, isSellAllowed: true }]
      .filter((a) => !p.get('symbol') || a.symbol === p.get('symbol')),
  },
};

export interface NewestRecord {
  method: string;
  url: string;
  status: number;
  reason?: string;
}

const records: NewestRecord[] = [];

function verify(query: string, body: string): string | undefined {
  const m = /(^|&)signature=([^&]*)$/.exec(query);
  if (!m) return 'signature missing';
  const want = createHmac('sha256', secret).update(query.slice(0, m.index) + body).digest('hex');
  return m[2].length === want.length && timingSafeEqual(Buffer.from(m[2]), Buffer.from(want)) ? undefined : 'signature mismatch';
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const url = req.url ?? '/';
    if (url === '/__records') {
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify(records));
    }
    const body = Buffer.concat(chunks).toString('utf8');
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const query = q < 0 ? '' : url.slice(q + 1);
    const params = new URLSearchParams(`${query}&${body}`);
    const op = OPERATIONS[`${req.method} ${path}`];
    const refuse = (status: number, code: number, reason: string) => {
      records.push({ method: req.method ?? '', url, status, reason });
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code, msg: reason }));
    };
    if (!op) return refuse(404, -1020, `${req.method} ${path}: not an operation of this upstream`);
    if (req.headers['x-mbx-apikey'] !== apiKey) return refuse(401, -2014, 'API-key format invalid.');
    if (op.signed) {
      const bad = verify(query, body);
      if (bad) return refuse(400, -1022, `Signature for this request is not valid. (${bad})`);
    }
    for (const name of op.required) if (!params.get(name)) return refuse(400, -1102, `Mandatory parameter '${name}' was not sent, was empty/null, or malformed.`);
    const wrong = op.check?.(params);
    if (wrong) return refuse(400, -1130, wrong);
    records.push({ method: req.method ?? '', url, status: 200 });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(op.answer(params)));
  });
});
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  console.log(`port ${typeof a === 'object' && a ? a.port : 0}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
