// A method table (data/binance-modular-connectors-*.json) as a description of the upstream: one row
// per REST method an official client calls, with the parameter names it sends and whether it
// requires them; the older tables also say `signed` and a type per parameter.
//
// Security of an operation: `signed` when the row says; else SIGNED when the method sends one of the
// service's signedParameters (timestamp, signature, recvWindow: a client only sends those to sign),
// else NONE, with a note saying the table does not tell (an API-key-only endpoint looks the same).
// `signed: false` is also the operation's `unsigned`: it relaxes a SIGNED entry of the catalogue
// (release-compare.ts).
// Rows whose parameter names are a python client's snake_case argument names are read as the names
// that client sends: binance-sdk-* turns every payload key into camelCase before it encodes and signs
// the query (binance/binance-connector-python common/src/binance_common/utils.py encoded_string and
// snake_to_camel, at 29da3291), so `recv_window` goes out as `recvWindow`.
import { basename } from 'node:path';
import { InputError } from '../../src/input-error.js';
import { inPaths, type DescOperation, type DescParameter, type Description } from './description.js';
import { serviceDefaults } from './entry.js';
import { checkNames } from './names.js';
import { slug } from './openapi.js';
import { checkOperationCount, parseSource, readSourceText, SOURCE_LIMITS, type SourceLimits } from './source-file.js';

interface Row {
  client?: string;
  client_version?: string;
  name?: string;
  method: string;
  path: string;
  signed?: boolean;
  params?: { name: string; required?: boolean; type?: string }[];
  params_note?: string;
}

/** The signing parameters a client sends, when service.yaml names none. */
const SIGNING = ['timestamp', 'signature', 'recvWindow'];
const TYPES: Record<string, string> = { number: 'number', integer: 'integer', boolean: 'boolean', string: 'string' };

export function isMethodTable(data: unknown): boolean {
  return !!data && typeof data === 'object' && Array.isArray((data as { methods?: unknown }).methods);
}

/** The HTTP methods a row may name. */
const METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'PATCH']);

/**
 * A method table read within `limits` (source-file.ts); a row of another shape, an unknown method,
 * a path or parameter name the catalogue cannot hold (names.ts) is refused (InputError).
 */
export function methodTableDescription(file: string, service: Record<string, any> | null, paths?: readonly string[], limits: SourceLimits = SOURCE_LIMITS): Description {
  const data = parseSource(file, readSourceText(file, limits), false) as { methods?: Row[] };
  if (!isMethodTable(data)) throw new InputError(`${file}: not a method table (no "methods" list)`);
  checkOperationCount(file, data.methods!.length, limits);
  data.methods!.forEach((row, i) => {
    const bad = rowProblem(row);
    if (bad) throw new InputError(`${file}: methods[${i}]: ${bad}`);
  });
  const name = basename(file);
  const label = `method table ${name}`;
  const defaults = serviceDefaults(service ?? {});
  const signing = defaults.signed.size ? defaults.signed : new Set(SIGNING);
  const out: Description = { kind: 'method-table', file, label, operations: [], skipped: [], warnings: [], leftOut: 0, schemas: {} };
  const seen = new Set<string>();
  for (const row of data.methods!) {
    const method = String(row.method).toUpperCase();
    const key = `${method} ${row.path}`;
    if (!inPaths(row.path, paths)) {
      out.leftOut++;
      continue;
    }
    checkNames(name, method, row.path, []);
    if (/[{}]/.test(row.path)) {
      out.skipped.push(`${key}: path template: catalogue paths are static (the gateway routes by exact path), so it is not imported`);
      continue;
    }
    if (seen.has(key)) {
      out.skipped.push(`${key}: listed again (${row.client ?? '?'} ${row.name ?? ''}): the first row counts`);
      continue;
    }
    seen.add(key);
    const snake = !!row.params_note && /snake_case/i.test(row.params_note);
    const params = (row.params ?? []).map((p) => (snake ? { ...p, name: snakeToCamel(p.name) } : p));
    checkNames(name, method, row.path, params.map((p) => p.name));
    const sendsSigning = params.some((p) => signing.has(p.name));
    const security = row.signed === true || (row.signed === undefined && sendsSigning) ? 'SIGNED' : 'NONE';
    const notes: string[] = [];
    if (row.signed === undefined) notes.push(security === 'SIGNED' ? 'SIGNED: the client sends signing parameters' : 'security not in the table: NONE, as the client sends no signing parameter (an API key may still be needed)');
    const unreliable = !snake && row.params_note && /argument names/i.test(row.params_note) ? `parameter names in the table are the client's argument names (${row.params_note}), not the names sent: parameters not imported` : undefined;
    if (snake) notes.push('parameter names: the python client\'s argument names as it sends them, in camelCase (binance_common utils.py encoded_string, binance/binance-connector-python @29da3291)');
    const leaveOut = (n: string) => (security === 'SIGNED' && signing.has(n))
      || defaults.common.some((c) => c.name === n && (!c.pathPrefix || row.path.startsWith(c.pathPrefix)));
    const parameters: DescParameter[] | null = unreliable ? null : params.filter((p) => !leaveOut(p.name)).map((p) => {
      const type = p.type ? TYPES[p.type] : undefined;
      const entry = { name: p.name, ...(p.required ? { required: true } : {}), ...(type ? { schema: { type } } : {}) };
      return { name: p.name, in: 'query', required: p.required === true, deprecated: false, entry, typed: type !== undefined };
    });
    if (unreliable) notes.push(unreliable);
    const client = [row.client, row.client_version, row.name].filter(Boolean).join(' ');
    const entry: Record<string, any> = { method, path: row.path, source: client ? `${label} (${client})` : label };
    if (notes.length) entry.note = notes.join('; ');
    entry.security = security;
    if (parameters?.length) entry.parameters = parameters.map((p) => p.entry);
    const op: DescOperation = {
      key, method, path: row.path, module: slug(row.client ?? 'default'), deprecated: false,
      security: row.signed === true ? 'SIGNED' : undefined, ...(row.signed === false ? { unsigned: true } : {}), parameters, entry,
      ...(unreliable ? { parametersNote: unreliable } : {}),
    };
    out.operations.push(op);
  }
  return out;
}

/** Why a row is not one of a method table, or null. */
function rowProblem(row: unknown): string | null {
  if (row === null || typeof row !== 'object' || Array.isArray(row)) return 'not an object';
  const r = row as Record<string, unknown>;
  if (typeof r.method !== 'string' || !METHODS.has(r.method.toUpperCase())) return `method ${JSON.stringify(r.method)} is not one of ${[...METHODS].join(', ')}`;
  if (typeof r.path !== 'string') return 'no "path" string';
  for (const k of ['client', 'client_version', 'name', 'params_note'] as const) if (r[k] !== undefined && typeof r[k] !== 'string') return `"${k}" is not a string`;
  if (r.signed !== undefined && typeof r.signed !== 'boolean') return '"signed" is not true or false';
  if (r.params !== undefined && !(Array.isArray(r.params) && r.params.every((p) => p !== null && typeof p === 'object' && typeof (p as { name?: unknown }).name === 'string'))) return '"params" is not a list of objects with a "name" string';
  return null;
}

/** What binance_common's snake_to_camel makes of an argument name: `recv_window` → `recvWindow`. */
export function snakeToCamel(name: string): string {
  const [first, ...rest] = name.split('_');
  return first + rest.map((w) => (w ? w[0].toUpperCase() + w.slice(1).toLowerCase() : '')).join('');
}
