// ccxt's endpoint table for one exchange, as its describe() gives it: `api` (groups → HTTP method →
// path → cost or config, or a list of paths) and `urls.api` (each group's base URL). Read from a JSON
// extract of those two (a file, bounded like every import source), or from an installed ccxt package
// (a folder whose package.json names ccxt: that code is run, so only a ccxt installed on purpose).
// Each endpoint also gets the implicit method ccxt defines for it (sapiGetMarginAllOrders), derived
// as ccxt's Exchange.defineRestApiEndpoint derives it.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { InputError } from '../../src/input-error.js';
import { UsageError } from '../../src/args.js';
import { checkOperationCount, parseSource, readSourceText, SOURCE_LIMITS, type SourceLimits } from './source-file.js';

export interface CcxtEndpoint {
  /** "METHOD /base/path/of/the/endpoint": the group's base URL path joined to the table's path. */
  key: string;
  method: string;
  path: string;
  /** The host of the group's base URL (api.binance.com). */
  host: string;
  /** The implicit API method ccxt defines for it (sapiGetMarginAllOrders). */
  name: string;
  /** The group's keys in the table (['sapi']) and the path as the table writes it (margin/allOrders). */
  group: string[];
  tablePath: string;
}

export interface CcxtTable {
  /** How reports cite it: `ccxt 4.5.84 binance (node_modules/ccxt)`. */
  label: string;
  exchange: string;
  version?: string;
  endpoints: CcxtEndpoint[];
  /** Groups without a base URL in urls.api, which no request can reach. */
  skipped: string[];
}

/** What describe() holds that the table is read from; a JSON extract is this object. */
export interface CcxtExtract {
  id: string;
  /** ccxt's version (the package's), when known. */
  version?: string;
  urls: { api: unknown };
  api: unknown;
}

const METHODS = /^(get|post|put|delete|head|patch)$/i;

export function isCcxtExtract(data: unknown): data is CcxtExtract {
  const d = data as Partial<CcxtExtract> | null;
  return !!d && typeof d === 'object' && isObject(d.api) && isObject(d.urls) && isObject((d.urls as { api?: unknown }).api);
}

/** A folder holding an installed ccxt package. */
export function isCcxtPackage(source: string): boolean {
  try {
    return statSync(source).isDirectory() && JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')).name === 'ccxt';
  } catch {
    return false;
  }
}

/** The table of `exchange` in `source`: a ccxt package folder (exchange required) or a JSON extract. */
export function readCcxtTable(source: string, exchange: string | undefined, limits: SourceLimits = SOURCE_LIMITS): CcxtTable {
  const extract = isCcxtPackage(source) ? fromPackage(source, exchange) : fromFile(source, limits);
  if (exchange !== undefined && extract.id !== exchange) throw new UsageError(`${source} is ccxt's table of "${extract.id}", not of --exchange ${exchange}`);
  const label = `ccxt${extract.version ? ` ${extract.version}` : ''} ${extract.id} (${source})`;
  const out: CcxtTable = { label, exchange: extract.id, version: extract.version, endpoints: [], skipped: [] };
  walk(source, extract.api as Record<string, unknown>, [], extract.urls.api, out);
  checkOperationCount(source, out.endpoints.length, limits);
  return out;
}

/** The implicit method name ccxt gives an endpoint (Exchange.defineRestApiEndpoint, camelCase form). */
export function ccxtMethodName(group: readonly string[], method: string, path: string): string {
  const suffix = path.split(/[^a-zA-Z0-9]/).map(capitalize).join('');
  const prefix = group[0] + group.slice(1).map(capitalize).join('');
  return prefix + capitalize(method.toLowerCase()) + capitalize(suffix);
}

const capitalize = (s: string) => (s.length ? s[0].toUpperCase() + s.slice(1) : s);
const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function fromFile(file: string, limits: SourceLimits): CcxtExtract {
  if (!existsSync(file)) throw new UsageError(`${file}: no such file`);
  const data = parseSource(file, readSourceText(file, limits), false);
  if (!isCcxtExtract(data)) throw new InputError(`${file}: not a ccxt table (an object with "api" and "urls.api", as ccxt's describe() gives them)`);
  if (typeof data.id !== 'string' || !data.id) throw new InputError(`${file}: a ccxt table needs the exchange's "id"`);
  if (data.version !== undefined && typeof data.version !== 'string') throw new InputError(`${file}: "version" is not a string`);
  return data;
}

/** Load the package and ask the exchange for its description: this runs the package's code. */
function fromPackage(dir: string, exchange: string | undefined): CcxtExtract {
  if (!exchange) throw new UsageError(`${dir} is a ccxt package: name the exchange with --exchange <id> (binance)`);
  // By its own name from inside the package: its "exports" decide the entry, as for any require('ccxt').
  const ccxt = createRequire(join(resolve(dir), 'package.json'))('ccxt') as Record<string, unknown> & { version?: string };
  const Exchange = ccxt[exchange];
  if (typeof Exchange !== 'function' || !Array.isArray(ccxt.exchanges) || !(ccxt.exchanges as unknown[]).includes(exchange)) {
    throw new UsageError(`ccxt ${ccxt.version ?? ''} at ${dir} has no exchange "${exchange}"`);
  }
  const d = (new (Exchange as new () => { describe(): CcxtExtract })()).describe();
  return { id: d.id, version: ccxt.version, urls: { api: d.urls.api }, api: d.api };
}

/** Every endpoint under a group of the table; a group is named by its keys, its base URL found the same way in urls.api. */
function walk(file: string, node: Record<string, unknown>, group: string[], urls: unknown, out: CcxtTable): void {
  for (const [key, value] of Object.entries(node)) {
    if (group.length && METHODS.test(key)) {
      const base = baseUrl(urls, group);
      const paths = Array.isArray(value) ? value : isObject(value) ? Object.keys(value) : null;
      if (paths === null) throw new InputError(`${file}: api.${[...group, key].join('.')} is neither a list of paths nor an object of paths`);
      if (base === null) {
        out.skipped.push(`api.${[...group, key].join('.')}: no base URL in urls.api.${group.join('.')}: ${paths.length} endpoint(s) not read`);
        continue;
      }
      for (const raw of paths) {
        if (typeof raw !== 'string') throw new InputError(`${file}: api.${[...group, key].join('.')}: a path is not a string`);
        const tablePath = raw.trim();
        const method = key.toUpperCase();
        const path = `${base.path}/${tablePath}`;
        out.endpoints.push({ key: `${method} ${path}`, method, path, host: base.host, name: ccxtMethodName(group, key, tablePath), group, tablePath });
      }
    } else if (isObject(value)) {
      walk(file, value, [...group, key], urls, out);
    } else {
      throw new InputError(`${file}: api.${[...group, key].join('.')} is neither an HTTP method nor a group of them`);
    }
  }
}

/** The host and path of a group's base URL (urls.api.sapi = https://api.binance.com/sapi/v1), or null. */
function baseUrl(urls: unknown, group: readonly string[]): { host: string; path: string } | null {
  let at: unknown = urls;
  for (const k of group) {
    if (typeof at === 'string') break;
    at = isObject(at) ? at[k] : undefined;
  }
  if (typeof at !== 'string') return null;
  let url: URL;
  try {
    url = new URL(at);
  } catch {
    return null;
  }
  return { host: url.host, path: url.pathname.replace(/\/+$/, '') };
}

