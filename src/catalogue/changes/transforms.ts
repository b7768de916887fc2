// Named transforms: what a version change needs code for, referenced from changes.yaml by name
// (as endpoints name builders). The exception: every other change is data. A request transform
// works on the parameters as text (name → value, in the order sent) and returns a refusal message
// when the old request has no equivalent; an answer transform returns the older answer.

export type Params = Map<string, string>;

export interface Transform {
  summary: string;
  /** Parameters it reads and writes (for the plan listing and the check that they exist). */
  reads?: string[];
  writes?: string[];
  request?(params: Params): string | undefined;
  answer?(body: unknown): unknown;
}

/** The per-leg fields the old OCO named limit… / stop… and the new one above… / below…. */
const OCO_LEG_FIELDS = ['ClientOrderId', 'IcebergQty', 'StrategyId', 'StrategyType'];

export const TRANSFORMS: Record<string, Transform> = {
  /**
   * POST /sapi/v1/margin/isolated/transfer (transFrom/transTo SPOT|ISOLATED_MARGIN, symbol) →
   * POST /sapi/v1/asset/transfer: the direction picks the universal type, and the pair goes in
   * toSymbol (into isolated margin) or fromSymbol (out of it). The mapping needs both old fields
   * at once, which no single instruction says.
   */
  isolatedTransferToUniversal: {
    summary: 'transFrom/transTo/symbol → type MAIN_ISOLATED_MARGIN + toSymbol, or ISOLATED_MARGIN_MAIN + fromSymbol',
    reads: ['transFrom', 'transTo', 'symbol'],
    writes: ['type', 'toSymbol', 'fromSymbol'],
    request(p) {
      const from = p.get('transFrom');
      const to = p.get('transTo');
      const symbol = p.get('symbol') ?? '';
      p.delete('transFrom');
      p.delete('transTo');
      p.delete('symbol');
      if (from === 'SPOT' && to === 'ISOLATED_MARGIN') {
        p.set('type', 'MAIN_ISOLATED_MARGIN');
        p.set('toSymbol', symbol);
      } else if (from === 'ISOLATED_MARGIN' && to === 'SPOT') {
        p.set('type', 'ISOLATED_MARGIN_MAIN');
        p.set('fromSymbol', symbol);
      } else {
        return `transFrom=${from ?? ''} transTo=${to ?? ''}: an isolated margin transfer goes between SPOT and ISOLATED_MARGIN`;
      }
      return undefined;
    },
  },
  /**
   * ws-api orderList.place (the deprecated OCO: a limit leg at `price`, a stop leg at `stopPrice`,
   * optionally a stop-limit at `stopLimitPrice`) → orderList.place.oco (an above and a below leg,
   * each with its type). The side decides which leg is which: a SELL's limit order sits above the
   * market and its stop below, a BUY's the reverse (the exchange's OCO price rules). Values are moved,
   * never read as numbers, so a websocket frame's JSON values keep their types.
   */
  ocoToOrderListOco: {
    summary: 'side SELL: price → above LIMIT_MAKER, stopPrice → below STOP_LOSS(_LIMIT); BUY: the reverse; limit*/stop* → above*/below*',
    reads: ['side', 'price', 'stopPrice', 'stopLimitPrice', 'stopLimitTimeInForce', 'trailingDelta', ...OCO_LEG_FIELDS.flatMap((f) => [`limit${f}`, `stop${f}`])],
    writes: ['aboveType', 'belowType', 'abovePrice', 'belowPrice', 'aboveStopPrice', 'belowStopPrice', 'aboveTrailingDelta', 'belowTrailingDelta',
      'aboveTimeInForce', 'belowTimeInForce', ...OCO_LEG_FIELDS.flatMap((f) => [`above${f}`, `below${f}`])],
    request(p) {
      const side = p.get('side');
      if (side !== 'SELL' && side !== 'BUY') return `side=${String(side)}: an OCO is a BUY or a SELL`;
      const [limit, stop] = side === 'SELL' ? ['above', 'below'] : ['below', 'above'];
      const move = (from: string, to: string) => { const v = p.get(from); p.delete(from); if (v !== undefined) p.set(to, v); };
      const stopLimit = p.has('stopLimitPrice');
      p.set(`${limit}Type`, 'LIMIT_MAKER');
      p.set(`${stop}Type`, stopLimit ? 'STOP_LOSS_LIMIT' : 'STOP_LOSS');
      move('price', `${limit}Price`);
      move('stopPrice', `${stop}StopPrice`);
      move('trailingDelta', `${stop}TrailingDelta`);
      move('stopLimitPrice', `${stop}Price`);
      move('stopLimitTimeInForce', `${stop}TimeInForce`);
      for (const f of OCO_LEG_FIELDS) { move(`limit${f}`, `${limit}${f}`); move(`stop${f}`, `${stop}${f}`); }
      return undefined;
    },
  },
  /**
   * GET /sapi/v1/margin/transfer rows carry type ROLL_IN / ROLL_OUT where the isolated transfer
   * history's rows carried transFrom / transTo: the direction is restored from the type.
   */
  rollTypeToDirection: {
    summary: 'rows[].type ROLL_IN → transFrom SPOT, transTo ISOLATED_MARGIN; ROLL_OUT → the reverse',
    answer(body) {
      const rows = (body as { rows?: unknown })?.rows;
      if (!Array.isArray(rows)) return body;
      for (const row of rows) {
        if (!row || typeof row !== 'object') continue;
        const r = row as Record<string, unknown>;
        if (r.type === 'ROLL_IN') { r.transFrom ??= 'SPOT'; r.transTo ??= 'ISOLATED_MARGIN'; }
        else if (r.type === 'ROLL_OUT') { r.transFrom ??= 'ISOLATED_MARGIN'; r.transTo ??= 'SPOT'; }
      }
      return body;
    },
  },
};

export function transformNamed(name: string): Transform | undefined {
  return Object.hasOwn(TRANSFORMS, name) ? TRANSFORMS[name] : undefined;
}
