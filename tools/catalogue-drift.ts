// `npm run catalogue -- drift <url|file> [--format text|json]`: what live traffic says the catalogue
// lacks, as a maintainer's to-do list. Reads GET /_gateway/drift of a running gateway (the URL of the
// gateway, or of the route itself) or a saved copy of its JSON, and prints the operations clients
// called that the catalogue does not have (most called first: candidates to import) and the
// upstream's answers that contradict it (an operation or parameter it holds alive that the upstream
// says does not exist: check its removed:).
// What it prints comes from a gateway's table (names clients sent) or a file: each text line has its
// control characters escaped (src/printable.ts), so a name holding a newline or a terminal escape
// cannot forge a line; a report whose entries are not of the route's shape is refused (exit 2).
import { readFileSync } from 'node:fs';
import { flag, oneOf, parseArgs, UsageError } from '../src/args.js';
import type { DriftReport } from '../src/gateway/drift/drift.js';
import { printable } from '../src/printable.js';
import { InputError } from '../src/input-error.js';
import { utf8Text } from '../src/utf8-text.js';

const ROUTE = '/_gateway/drift';

/** One line of the to-do list, as --format json prints it. */
export interface DriftAction {
  action: 'add' | 'check';
  what: string;
  count: number;
  firstSeen: string;
  lastSeen: string;
  /** The report entry it was made from. */
  entry: DriftReport['unknownOperations']['entries'][number] | DriftReport['contradictions']['entries'][number];
}

/** A source that cannot be read, reached or understood: said on stderr, exit 2, without the usage. */
class SourceError extends Error {}

function refused(e: unknown): number {
  if (!(e instanceof SourceError) && !(e instanceof InputError)) throw e;
  console.error(`error: ${printable((e as Error).message)}`);
  return 2;
}

export function driftCommand(argv: string[]): number | Promise<number> {
  const args = parseArgs(argv, ['format']);
  const format = oneOf('format', flag(args, 'format') ?? 'text', ['text', 'json'] as const);
  const [source, extra] = args.positionals;
  if (!source) throw new UsageError('drift needs the URL of a running gateway or a file holding its GET /_gateway/drift answer');
  if (extra !== undefined) throw new UsageError(`drift takes one URL or file, not also "${extra}"`);
  if (/^https?:\/\//i.test(source)) return fetchReport(source).then((report) => print(report, format), refused);
  try {
    return print(parseReport(readText(source), source), format);
  } catch (e) {
    return refused(e);
  }
}

/** A saved answer is at most this large (the route's answer stays under 50 KiB with full tables). */
const MAX_REPORT_BYTES = 16 * 1024 * 1024;

function readText(file: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    throw new SourceError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (bytes.length > MAX_REPORT_BYTES) throw new SourceError(`${file} is ${bytes.length} bytes, more than a GET ${ROUTE} answer can be (${MAX_REPORT_BYTES})`);
  return utf8Text(file, bytes);
}

/** GET /_gateway/drift of the gateway at `url` (or `url` itself when it names the route). */
async function fetchReport(url: string): Promise<DriftReport> {
  const u = new URL(url);
  if (!u.pathname.endsWith(ROUTE)) u.pathname = `${u.pathname.replace(/\/$/, '')}${ROUTE}`;
  let res: Response;
  try {
    res = await fetch(u, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(10_000) });
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new SourceError(`cannot reach ${u.origin}${u.pathname}: ${cause?.code ?? cause?.message ?? (e as Error).message}`);
  }
  const text = utf8Text(`${u.origin}${u.pathname}`, new Uint8Array(await res.arrayBuffer()));
  // The admin plane answers only the host names it is known by (--allowed-host) and no cross-site page.
  if (!res.ok) throw new SourceError(`${u.origin}${u.pathname} answered ${res.status}: ${text.slice(0, 300)}`);
  return parseReport(text, `${u.origin}${u.pathname}`);
}

export function parseReport(text: string, from: string): DriftReport {
  let v: Partial<DriftReport>;
  try {
    v = JSON.parse(text) as Partial<DriftReport>;
  } catch (e) {
    throw new SourceError(`${from} is not JSON: ${(e as Error).message}`);
  }
  if (!Array.isArray(v?.unknownOperations?.entries) || !Array.isArray(v?.contradictions?.entries)) {
    throw new SourceError(`${from} is not a GET ${ROUTE} answer (it has no unknownOperations.entries and contradictions.entries)`);
  }
  const bad = shapeProblem(v as DriftReport);
  if (bad) throw new SourceError(`${from} is not a GET ${ROUTE} answer: ${bad}`);
  return v as DriftReport;
}

/** What in a report is not of the route's shape (what print() reads), or null. */
function shapeProblem(r: DriftReport): string | null {
  const str = (x: unknown) => typeof x === 'string';
  const strOrNull = (x: unknown) => x === null || x === undefined || typeof x === 'string';
  const count = (x: unknown) => Number.isSafeInteger(x) && (x as number) >= 0;
  if (!str(r.since)) return 'since is not a string';
  for (const t of ['unknownOperations', 'contradictions'] as const) if (r[t].overflow !== undefined && !count(r[t].overflow)) return `${t}.overflow is not a count`;
  for (const [i, e] of r.unknownOperations.entries.entries()) {
    const at = `unknownOperations.entries[${i}]`;
    if (e === null || typeof e !== 'object') return `${at} is not an object`;
    if (!str(e.surface) || !str(e.operation) || !strOrNull(e.service) || !count(e.count) || !str(e.firstSeen) || !str(e.lastSeen)) return `${at} lacks surface, operation, count, firstSeen or lastSeen of the right type`;
  }
  for (const [i, e] of r.contradictions.entries.entries()) {
    const at = `contradictions.entries[${i}]`;
    if (e === null || typeof e !== 'object') return `${at} is not an object`;
    if (!str(e.service) || !strOrNull(e.release) || !str(e.operation) || !str(e.says) || !count(e.status) || !(e.code === null || Number.isSafeInteger(e.code))
      || !Array.isArray(e.parameters) || !e.parameters.every(str) || !count(e.count) || !str(e.firstSeen) || !str(e.lastSeen)) {
      return `${at} lacks service, operation, says, status, code, parameters, count, firstSeen or lastSeen of the right type`;
    }
  }
  return null;
}

/** The to-do list: unknown operations most called first, then the contradictions most seen first. */
export function driftActions(report: DriftReport): DriftAction[] {
  const byCount = <T extends { count: number; firstSeen: string }>(a: T, b: T) => b.count - a.count || a.firstSeen.localeCompare(b.firstSeen);
  const add = [...report.unknownOperations.entries].sort(byCount).map((e): DriftAction => ({
    action: 'add', what: `${e.operation}${e.service ? ` (service ${e.service}${e.surface === 'rest' ? '' : `, ${e.surface === 'ws-api' ? 'ws-api.yaml' : 'streams.yaml'}`})` : ''}`,
    count: e.count, firstSeen: e.firstSeen, lastSeen: e.lastSeen, entry: e,
  }));
  const check = [...report.contradictions.entries].sort(byCount).map((e): DriftAction => {
    const answer = `HTTP ${e.status}${e.code === null ? ', no code' : `, code ${e.code}`}`;
    const at = e.release ?? 'its only release';
    const what = e.says === 'unknown operation'
      ? `upstream says ${e.operation} does not exist at ${at} (${answer}): check removed: of ${e.operation} in service ${e.service}`
      : `upstream says ${e.operation} was sent a parameter it does not take at ${at} (${answer}${e.parameters.length ? `; catalogue parameters sent: ${e.parameters.join(', ')}` : ''}): check removed: of those parameters in service ${e.service}`;
    return { action: 'check', what, count: e.count, firstSeen: e.firstSeen, lastSeen: e.lastSeen, entry: e };
  });
  return [...add, ...check];
}

function print(report: DriftReport, format: 'text' | 'json'): number {
  const actions = driftActions(report);
  const notListed = { unknownOperations: report.unknownOperations.overflow, contradictions: report.contradictions.overflow };
  if (format === 'json') {
    console.log(JSON.stringify({ since: report.since, actions, notListed }, null, 2));
    return 0;
  }
  const say = (line: string) => console.log(printable(line));
  const times = (a: DriftAction) => `${a.count} ${a.action === 'add' ? 'call' : 'answer'}${a.count === 1 ? '' : 's'}, first ${a.firstSeen}, last ${a.lastSeen}`;
  for (const a of actions) say(a.action === 'add' ? `add to the catalogue: ${a.what} (${times(a)})` : `${a.what} (${times(a)})`);
  const adds = actions.filter((a) => a.action === 'add').length;
  say(`${adds} unknown operation(s), ${actions.length - adds} upstream contradiction(s) since ${report.since}`);
  if (notListed.unknownOperations || notListed.contradictions) {
    say(`not listed (the gateway's table of ${report.bounds?.entries ?? '?'} entries was full): ${notListed.unknownOperations} call(s) to other unknown operations, ${notListed.contradictions} other contradicting answer(s)`);
  }
  return 0;
}
