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
