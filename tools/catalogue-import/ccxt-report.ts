// The release import's second source: ccxt's endpoint table (ccxt-table.ts) against the catalogue. The
// table lists what one widely used client calls, not what the upstream serves, so it is never the
// source of a catalogue fact and nothing is written: the report names every endpoint ccxt calls on the
// service's host that the catalogue neither holds at the release (served; removed, answered 410; not
// yet added, answered 404 naming its release) nor lists in not-served.yaml. Each is to be catalogued
// from the upstream's own documents, or listed with its reason: then the next ccxt release is this one
// command again.
import { basename, dirname, resolve } from 'node:path';
import { UsageError } from '../../src/args.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import type { Service } from '../../src/catalogue/model.js';
import { operationKey, operationKeyOf } from '../../src/catalogue/operation-key.js';
import { resolveService } from '../../src/catalogue/resolve.js';
import { cacheDirFrom } from '../../src/config.js';
import { printable } from '../../src/printable.js';
import { readCcxtTable } from './ccxt-table.js';
import { inPaths } from './description.js';
import { checkNames } from './names.js';
import { SOURCE_LIMITS, type SourceLimits } from './source-file.js';

export interface CcxtOptions {
  /** The exchange's id in ccxt (binance); required for a package folder. */
  exchange?: string;
  /** Default: the service's newest release. */
  release?: string;
  /** Only endpoints whose path starts with one of these (/sapi/). */
  paths?: string[];
  limits?: Partial<SourceLimits>;
}

export interface CcxtReport {
  source: string;
  service: string;
  release: string | null;
  /** The service's upstream host: the table's endpoints on it are the ones compared. */
  host: string;
  paths?: string[];
  /** Distinct endpoints compared. */
  endpoints: number;
  served: string[];
  removed: string[];
  notYet: string[];
  /** Listed in not-served.yaml. */
  notServed: string[];
  /** Neither catalogued nor listed, with the implicit method ccxt calls it by. */
  unaccounted: { key: string; name: string }[];
  /** Entries of not-served.yaml (within --paths) that this table does not call. */
  listedNotCalled: string[];
  /** Endpoints of the table on other hosts or outside --paths. */
  leftOut: number;
  otherHosts: string[];
  /** Groups of the table with no base URL. */
  skipped: string[];
}

export function accountForCcxt(source: string, serviceDir: string, opts: CcxtOptions = {}): CcxtReport {
  const dir = resolve(serviceDir);
  const { catalogue } = loadCatalogue(dirname(dir), { cacheDir: cacheDirFrom() });
  const service = catalogue.services.find((s) => s.id === basename(dir));
  if (!service) throw new UsageError(`${serviceDir}: no service "${basename(dir)}" in the catalogue at ${dirname(dir)}`);
  const host = upstreamHost(service);
  if (opts.release !== undefined && service.versioned && !service.releases.some((r) => r.id === opts.release)) {
    throw new UsageError(`release ${opts.release} is not in ${serviceDir}/releases.yaml; a ccxt table is compared with a release the catalogue has`);
  }
  const view = resolveService(service, opts.release);
  const table = readCcxtTable(source, opts.exchange, { ...SOURCE_LIMITS, ...opts.limits });
  const statusOf = new Map<string, string>();
  for (const e of view.endpoints) {
    const op = operationKey(e.endpoint);
    const had = statusOf.get(op);
    // Of several lives of one operation: served wins, then removed (the 410 an old life answers).
    if (had === undefined || rank(e.status) > rank(had)) statusOf.set(op, e.status);
  }
  const listed = new Set(service.notServed.map((n) => operationKey(n)));
  const report: CcxtReport = {
    source: table.label, service: service.id, release: view.release?.id ?? null, host, paths: opts.paths, endpoints: 0,
    served: [], removed: [], notYet: [], notServed: [], unaccounted: [], listedNotCalled: [], leftOut: 0, otherHosts: [], skipped: table.skipped,
  };
  const seen = new Set<string>();
  const others = new Set<string>();
  for (const e of table.endpoints) {
    if (e.host !== host || !inPaths(e.path, opts.paths)) {
      report.leftOut++;
      if (e.host !== host) others.add(e.host);
      continue;
    }
    if (seen.has(e.key)) continue; // a table may list one endpoint in two groups (binance's public and private share /api/v3)
    seen.add(e.key);
    checkNames(source, e.method, e.path, []);
    const op = operationKeyOf(e.key);
    const status = statusOf.get(op);
    if (status === 'alive' || status === 'deprecated') report.served.push(e.key);
    else if (status === 'removed') report.removed.push(e.key);
    else if (status === 'not-yet') report.notYet.push(e.key);
    else if (listed.has(op)) report.notServed.push(e.key);
    else report.unaccounted.push({ key: e.key, name: e.name });
  }
  report.endpoints = seen.size;
  const called = new Set([...seen].map(operationKeyOf));
  report.listedNotCalled = service.notServed.filter((n) => inPaths(n.path, opts.paths) && !called.has(operationKey(n))).map((n) => n.key);
  report.otherHosts = [...others].sort();
  return report;
}

const rank = (status: string) => ['not-yet', 'removed', 'deprecated', 'alive'].indexOf(status);

/** The host of the service's REST upstream, which the table's base URLs are matched against. */
function upstreamHost(service: Service): string {
  const rest = service.upstreams.rest;
  if (!rest) throw new UsageError(`service ${service.id} has no upstreams.rest: a ccxt table is matched by its base URLs' host`);
  return new URL(rest).host;
}

/** The report as lines, control characters escaped (what the table names must not forge a line). */
export function formatCcxtReport(r: CcxtReport): string {
  const scope = r.paths?.length ? `, paths ${r.paths.join(',')}` : '';
  const lines = [`${r.source} against ${r.service}${r.release ? ` at ${r.release}` : ''}: the endpoints it calls on ${r.host}${scope} (nothing written)`];
  for (const u of r.unaccounted) lines.push(`unaccounted ${u.key} (${u.name}): neither catalogued nor in not-served.yaml`);
  for (const k of r.listedNotCalled) lines.push(`not called ${k}: in not-served.yaml, not in this table`);
  for (const s of r.skipped) lines.push(`skipped ${s}`);
  if (r.leftOut) lines.push(`left out ${r.leftOut} endpoint(s)${r.otherHosts.length ? ` (other hosts: ${r.otherHosts.join(', ')})` : ''}${scope ? ' and outside --paths' : ''}`);
  lines.push(`${r.endpoints} endpoint(s): ${r.served.length} served, ${r.removed.length} removed (410), ${r.notYet.length} not yet added, ${r.notServed.length} not served (not-served.yaml), ${r.unaccounted.length} unaccounted for`);
  return `${lines.map(printable).join('\n')}\n`;
}
