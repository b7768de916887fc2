// Values a real client would send for a parameter: valid for the parameter as the catalogue describes
// it at the pin (first alive enum value, a number at or above its minimum, …), else a plain value of
// the type the client documents. The catalogue picks values only; names and forms are the client's own.
import { DEFAULT_CATALOGUE_DIR, loadCatalogue } from '../../src/catalogue/load.js';
import type { Parameter } from '../../src/catalogue/model.js';
import { findService, resolveService, type EndpointAt, type ReleaseView } from '../../src/catalogue/resolve.js';

export const PIN = '3.12.0';

const views = new Map<string, ReleaseView>();
/** The exchange at a release (default: the pin of the 3.x client tests; undefined id: the newest). */
export function viewAt(release: string | null = PIN): ReleaseView {
  const id = release ?? '';
  let v = views.get(id);
  if (!v) views.set(id, (v = resolveService(findService(loadCatalogue(DEFAULT_CATALOGUE_DIR).catalogue, 'exchange'), release ?? undefined)));
  return v;
}
export const pinned = (): ReleaseView => viewAt(PIN);

export function servedAt(key: string, view = pinned()): EndpointAt | undefined {
  return view.served.find((e) => e.endpoint.key === key);
}

/** Values that are only right for a name (formats the catalogue does not describe). */
const BY_NAME: Record<string, unknown> = {
  symbol: 'BNBUSDT', email: 'sub@example.com', toEmail: 'sub@example.com', fromEmail: 'sub@example.com', subAccountEmail: 'sub@example.com',
  recvWindow: 5000, timeUnit: 'MILLISECOND', windowSize: '1d', interval: '1m', timeZone: '0', listenKey: 'abc123',
  strategyType: 1000000, limitStrategyType: 1000000, stopStrategyType: 1000000, aboveStrategyType: 1000000, belowStrategyType: 1000000,
  workingStrategyType: 1000000, pendingStrategyType: 1000000, pendingAboveStrategyType: 1000000, pendingBelowStrategyType: 1000000,
};

function fromCatalogue(p: Parameter, list: boolean, v: ReleaseView): unknown {
  const s = p.schema as { type?: string; enum?: unknown[]; minimum?: number; exclusiveMinimum?: number; items?: { enum?: unknown[]; type?: string } };
  if (list && s.items?.type === 'object') return [{}]; // a list of records: their fields are not described
  const values = p.enum ? v.enumValues(p.enum).map((x) => x.value) : (s.enum ?? s.items?.enum)?.map(String);
  if (values?.length) return list ? values.slice(0, 2) : values[0];
  if (s.type === 'integer' || s.type === 'number') return Math.max(s.minimum ?? 1, (s.exclusiveMinimum ?? 0) + 1);
  if (s.type === 'boolean') return true;
  return undefined;
}

/**
 * A value for parameter `name` of `key`; `type` is what the client documents: 'number', 'boolean',
 * 'string', 'array' (a list the client serialises itself).
 */
export function sampleValue(key: string, name: string, type: string, view = pinned()): unknown {
  const list = type === 'array';
  if (BY_NAME[name] !== undefined) return list ? [BY_NAME[name]] : BY_NAME[name];
  const p = servedAt(key, view)?.parameters.find((x) => x.name === name);
  const v = p ? fromCatalogue(p, list, view) : undefined;
  if (v !== undefined) return v;
  if (type === 'number') return 1;
  if (type === 'boolean') return true;
  if (list) return ['BNBUSDT', 'BTCUSDT'];
  if (/time$|Time$/.test(name)) return 1700000000000;
  return /asset|coin|Asset|Coin/.test(name) ? 'USDT' : 'x1';
}

/** Names to leave out so no two parameters the catalogue declares exclusive are sent together. */
export function exclusiveLosers(key: string, names: string[], view = pinned()): Set<string> {
  const e = servedAt(key, view);
  const out = new Set<string>();
  for (const c of e?.endpoint.constraints ?? []) {
    const sent = c.exclusive.filter((n) => names.includes(n) && !out.has(n));
    for (const n of sent.slice(1)) out.add(n);
  }
  return out;
}
