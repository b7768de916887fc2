// Gateway configuration from, in rising precedence: defaults, a --config YAML file, environment
// variables (GATEWAY_*), command-line flags. Every bad value is a UsageError naming the valid choices.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { flag, parseArgs, UsageError, type ParsedArgs } from './args.js';
import { BUILDER_PRIORITIES, type BuilderPriority } from './builders/pool/background-priority.js';
import { DEFAULT_CATALOGUE_DIR } from './catalogue/load.js';
import type { ReleaseSpec } from './catalogue/pin.js';
import { defaultLogFormat, LEVELS, LOG_FORMATS, type Level, type LogFormat } from './log.js';
import { readSigningSettings, SIGNING_ENV, type SigningSettings } from './upstream/signing/settings.js';

export interface GatewayConfig {
  catalogue: string;
  /** Releases served: a list for every versioned service ('all' = every release), or per service id; default: the newest. */
  release: ReleaseSpec;
  /** Watch the catalogue folder, the config file and the tokens file, and reload on any change. */
  watch: boolean;
  /** On reload, close websockets whose stream or method the new program no longer serves (default: they keep running). */
  reloadClosesWebsockets: boolean;
  /** The config file this configuration was read from (watched with --watch). */
  configFile?: string;
  host: string;
  port: number;
  /** How host and port were given (--host, GATEWAY_HOST or the config key), to name them in a listen error. */
  given?: { host: string; port: string };
  /** Upstream overrides: "<service>" (REST) or "<service>.<rest|streams|wsApi>" → URL. */
  upstreams: Record<string, string>;
  /** The release each service's upstream speaks ("<service>" → release id; default: service.yaml upstreamRelease, else the newest). */
  upstreamRelease: Record<string, string>;
  strict: boolean;
  timeoutMs: number;
  bodyLimit: number;
  logLevel: Level;
  /** Log lines as JSON (default when stderr is not a terminal) or pretty (default on a terminal). */
  logFormat: LogFormat;
  /** Processes serving the port (node:cluster); 1 = this process alone. */
  workers: number;
  /** Bytes a websocket client may leave unread before it is closed (1008). */
  wsMaxBuffered: number;
  /** How long a websocket client may be held (not read) for an upstream that does not read, before both are closed (ms). */
  wsMaxHoldMs: number;
  /** Signing mode of the exchange service (EXCHANGE_* variables or the file's `signing:`); off when absent. */
  signing?: SigningSettings;
  /** Client tokens (hashed) with their allow-lists; required in signing mode off loopback. */
  tokensFile?: string;
  /** Origins allowed to read answers (CORS); '*' = any origin, for public (uncredentialed) answers only. */
  corsOrigins: string[];
  /** Host names a request to a service the gateway signs for may be addressed to (DNS-rebinding guard). */
  allowedHosts?: string[];
  /** Requests of one connection in progress at once; further pipelined requests wait in the socket. */
  maxPipelined: number;
  /** Open client connections at most; beyond it new connections are closed at once. */
  maxConnections: number;
  /** Time for a client to send the request headers (ms). */
  headersTimeoutMs: number;
  /** Idle keep-alive connections are closed after this long (ms). */
  keepAliveTimeoutMs: number;
  /** Connections to each upstream origin. */
  upstreamConnections: number;
  /** Requests one route may have at the upstream at once; beyond it 503. */
  routeConcurrency: number;
  /** How long a stopping gateway waits for in-flight requests (ms). */
  shutdownGraceMs: number;
  /** Under --workers: a worker whose event loop is blocked this long is replaced (ms). */
  workerStallMs: number;
  /** Worker threads running transaction builds (per process). */
  builderThreads: number;
  /** Builds waiting for a thread before further ones are refused 503. */
  builderQueue: number;
  /** Wall clock per build, queue wait included (ms); past it the worker is replaced and the client gets 503. */
  builderDeadlineMs: number;
  /** Builder threads' scheduling priority: background (nice 19, default), idle (also SCHED_IDLE), normal. */
  builderPriority: BuilderPriority;
  /** Enforce the rate limits the catalogue declares (service.yaml rateLimits) before forwarding. */
  rateLimit: boolean;
  /** Where the counters live: 'memory' (this process) or a redis:// URL shared by every replica. */
  rateLimitStore: string;
  /** Redis unreachable: 'open' counts in this process meanwhile, 'closed' refuses (503). */
  rateLimitFail: 'open' | 'closed';
}

const FLAGS = [
  'release', 'host', 'port', 'catalogue', 'upstream', 'config', 'timeout', 'body-limit', 'log-level', 'log-format', 'tokens-file', 'workers', 'ws-max-buffered',
  'cors-origin', 'allowed-host', 'max-pipelined', 'max-connections', 'headers-timeout', 'keep-alive-timeout', 'upstream-connections',
  'route-concurrency', 'shutdown-grace', 'worker-stall', 'builder-threads', 'builder-queue', 'builder-deadline', 'builder-priority',
  'default-release', 'ws-max-hold',
  'rate-limit', 'rate-limit-store', 'rate-limit-fail', 'upstream-release',
] as const;
const BOOLEANS = ['strict', 'watch', 'reload-closes-websockets'] as const;
const ENV: Record<string, string> = {
  release: 'GATEWAY_RELEASE', host: 'GATEWAY_HOST', port: 'GATEWAY_PORT', catalogue: 'GATEWAY_CATALOGUE',
  upstream: 'GATEWAY_UPSTREAM', config: 'GATEWAY_CONFIG', timeout: 'GATEWAY_TIMEOUT_MS', 'body-limit': 'GATEWAY_BODY_LIMIT',
  'log-level': 'GATEWAY_LOG_LEVEL', 'log-format': 'GATEWAY_LOG_FORMAT', strict: 'GATEWAY_STRICT', 'tokens-file': 'GATEWAY_TOKENS_FILE', workers: 'GATEWAY_WORKERS', 'ws-max-buffered': 'GATEWAY_WS_MAX_BUFFERED',
  'cors-origin': 'GATEWAY_CORS_ORIGINS', 'allowed-host': 'GATEWAY_ALLOWED_HOSTS', 'max-pipelined': 'GATEWAY_MAX_PIPELINED',
  'max-connections': 'GATEWAY_MAX_CONNECTIONS', 'headers-timeout': 'GATEWAY_HEADERS_TIMEOUT_MS', 'keep-alive-timeout': 'GATEWAY_KEEP_ALIVE_TIMEOUT_MS',
  'upstream-connections': 'GATEWAY_UPSTREAM_CONNECTIONS', 'route-concurrency': 'GATEWAY_ROUTE_CONCURRENCY', 'shutdown-grace': 'GATEWAY_SHUTDOWN_GRACE_MS',
  'worker-stall': 'GATEWAY_WORKER_STALL_MS', 'builder-threads': 'GATEWAY_BUILDER_THREADS', 'builder-queue': 'GATEWAY_BUILDER_QUEUE',
  'builder-deadline': 'GATEWAY_BUILDER_DEADLINE_MS', 'builder-priority': 'GATEWAY_BUILDER_PRIORITY', 'default-release': 'GATEWAY_DEFAULT_RELEASE', watch: 'GATEWAY_WATCH',
  'reload-closes-websockets': 'GATEWAY_RELOAD_CLOSES_WEBSOCKETS', 'ws-max-hold': 'GATEWAY_WS_MAX_HOLD_MS', 'rate-limit': 'GATEWAY_RATE_LIMIT', 'rate-limit-store': 'GATEWAY_RATE_LIMIT_STORE',
  'rate-limit-fail': 'GATEWAY_RATE_LIMIT_FAIL', 'upstream-release': 'GATEWAY_UPSTREAM_RELEASE',
};
const FILE_KEYS = [
  'release', 'host', 'port', 'catalogue', 'upstreams', 'strict', 'timeoutMs', 'bodyLimit', 'logLevel', 'logFormat', 'signing', 'tokensFile', 'workers', 'wsMaxBuffered',
  'cors', 'allowedHosts', 'maxPipelined', 'maxConnections', 'headersTimeoutMs', 'keepAliveTimeoutMs', 'upstreamConnections', 'routeConcurrency',
  'shutdownGraceMs', 'workerStallMs', 'builderThreads', 'builderQueue', 'builderDeadlineMs', 'builderPriority', 'defaultRelease', 'watch', 'reloadClosesWebsockets', 'wsMaxHoldMs',
  'rateLimit', 'rateLimitStore', 'rateLimitFail', 'upstreamRelease',
];

export const USAGE = `usage: npm start -- [--release <id>[,<id>…]|all|<service>=<id>[,<id>…]] [--default-release <id>] [--watch]
       [--reload-closes-websockets] [--host <h>] [--port <n>] [--catalogue <dir>]
       [--upstream <service>[.rest|.streams|.wsApi]=<url>]... [--strict] [--timeout <ms>] [--body-limit <bytes>]
       [--log-level ${LEVELS.join('|')}] [--log-format ${LOG_FORMATS.join('|')}] [--config <file.yaml>] [--tokens-file <tokens.yaml>] [--workers <n>|auto]
       [--ws-max-buffered <bytes>] [--ws-max-hold <ms>] [--cors-origin <origin>|*]... [--allowed-host <name>]... [--max-pipelined <n>]
       [--max-connections <n>] [--headers-timeout <ms>] [--keep-alive-timeout <ms>] [--upstream-connections <n>]
       [--route-concurrency <n>] [--shutdown-grace <ms>] [--worker-stall <ms>] [--builder-threads <n>]
       [--builder-queue <n>] [--builder-deadline <ms>] [--builder-priority background|idle|normal]
       [--rate-limit on|off] [--rate-limit-store memory|redis://host:6379/0]
       [--rate-limit-fail open|closed] [--upstream-release <service>=<id>]...
environment: ${Object.values(ENV).join(', ')} mirror the flags
signing mode: ${Object.values(SIGNING_ENV).join(', ')}`;

export function readConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const args = parseArgs(argv, FLAGS, BOOLEANS);
  if (args.positionals.length) throw new UsageError(`unexpected argument "${args.positionals[0]}"`);
  try {
    return fromSources(args, env);
  } catch (e) {
    throw namedBySource(e, args, env);
  }
}

/**
 * Checks word their errors by flag ("invalid --port"); a value that came from the environment or the
 * config file is named as the user wrote it (GATEWAY_PORT, or the file's key), not as a flag.
 */
function namedBySource(e: unknown, args: ParsedArgs, env: NodeJS.ProcessEnv): unknown {
  const m = e instanceof UsageError ? /^invalid --([a-z-]+) /.exec(e.message) : null;
  if (!m) return e;
  const where = givenAs(m[1], args, env, true); // defaults are valid: a bad value not from a flag or variable is the file's
  return where === `--${m[1]}` ? e : new UsageError((e as Error).message.replace(`--${m[1]}`, where));
}

/** The name of a setting as the user gave it: the flag, the variable or the config file's key; a default is named by its flag. */
function givenAs(name: string, args: ParsedArgs, env: NodeJS.ProcessEnv, inFile: boolean): string {
  if (args.flags.has(name)) return `--${name}`;
  const variable = ENV[name];
  if (variable && env[variable] !== undefined) return variable;
  return inFile ? `config file key ${name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())}` : `--${name}`;
}

function fromSources(args: ParsedArgs, env: NodeJS.ProcessEnv): GatewayConfig {
  const get = (name: string): string | undefined => flag(args, name) ?? env[ENV[name]] ?? undefined;
  const file = readConfigFile(get('config'));
  const cfg: GatewayConfig = {
    catalogue: get('catalogue') ?? str(file.catalogue) ?? DEFAULT_CATALOGUE_DIR,
    release: { byService: {} },
    watch: bool('watch', get('watch') ?? str(file.watch) ?? 'false'),
    reloadClosesWebsockets: bool('reload-closes-websockets', get('reload-closes-websockets') ?? str(file.reloadClosesWebsockets) ?? 'false'),
    configFile: get('config'),
    host: host(get('host') ?? str(file.host) ?? '127.0.0.1'),
    port: int('port', get('port') ?? str(file.port) ?? '8080', 0, 65535),
    given: { host: givenAs('host', args, env, file.host !== undefined), port: givenAs('port', args, env, file.port !== undefined) },
    upstreams: {},
    upstreamRelease: {},
    strict: bool('strict', get('strict') ?? str(file.strict) ?? 'false'),
    timeoutMs: int('timeout', get('timeout') ?? str(file.timeoutMs) ?? '10000', 50, 600_000),
    bodyLimit: int('body-limit', get('body-limit') ?? str(file.bodyLimit) ?? String(1024 * 1024), 1, 1024 ** 3),
    logLevel: level(get('log-level') ?? str(file.logLevel) ?? 'info'),
    logFormat: logFormat(get('log-format') ?? str(file.logFormat) ?? defaultLogFormat()),
    workers: workers(get('workers') ?? str(file.workers) ?? '1'),
    wsMaxBuffered: int('ws-max-buffered', get('ws-max-buffered') ?? str(file.wsMaxBuffered) ?? String(4 * 1024 * 1024), 1024, 1024 ** 3),
    wsMaxHoldMs: int('ws-max-hold', get('ws-max-hold') ?? str(file.wsMaxHoldMs) ?? '10000', 100, 3_600_000),
    signing: readSigningSettings(env, file.signing),
    tokensFile: get('tokens-file') ?? str(file.tokensFile),
    corsOrigins: list(args, env, 'cors-origin', corsFile(file.cors)) ?? ['*'],
    allowedHosts: list(args, env, 'allowed-host', file.allowedHosts),
    maxPipelined: int('max-pipelined', get('max-pipelined') ?? str(file.maxPipelined) ?? '16', 1, 1024),
    maxConnections: int('max-connections', get('max-connections') ?? str(file.maxConnections) ?? '10000', 1, 1_000_000),
    headersTimeoutMs: int('headers-timeout', get('headers-timeout') ?? str(file.headersTimeoutMs) ?? '10000', 100, 600_000),
    keepAliveTimeoutMs: int('keep-alive-timeout', get('keep-alive-timeout') ?? str(file.keepAliveTimeoutMs) ?? '65000', 100, 3_600_000),
    upstreamConnections: int('upstream-connections', get('upstream-connections') ?? str(file.upstreamConnections) ?? '256', 1, 65_536),
    routeConcurrency: 0,
    shutdownGraceMs: int('shutdown-grace', get('shutdown-grace') ?? str(file.shutdownGraceMs) ?? '10000', 0, 600_000),
    workerStallMs: int('worker-stall', get('worker-stall') ?? str(file.workerStallMs) ?? '10000', 100, 600_000),
    builderThreads: int('builder-threads', get('builder-threads') ?? str(file.builderThreads) ?? String(Math.max(1, availableParallelism() - 1)), 1, 256),
    builderQueue: 0,
    builderDeadlineMs: int('builder-deadline', get('builder-deadline') ?? str(file.builderDeadlineMs) ?? '10000', 100, 600_000),
    builderPriority: oneOf('builder-priority', get('builder-priority') ?? str(file.builderPriority) ?? 'background', BUILDER_PRIORITIES),
    rateLimit: onOff('rate-limit', get('rate-limit') ?? str(file.rateLimit) ?? 'on'),
    rateLimitStore: store(get('rate-limit-store') ?? str(file.rateLimitStore) ?? 'memory'),
    rateLimitFail: oneOf('rate-limit-fail', get('rate-limit-fail') ?? str(file.rateLimitFail) ?? 'open', ['open', 'closed'] as const),
  };
  cfg.builderQueue = int('builder-queue', get('builder-queue') ?? str(file.builderQueue) ?? String(8 * cfg.builderThreads), 1, 100_000);
  // By default one route may hold a quarter of the upstream pool: a hung endpoint leaves the rest to others.
  cfg.routeConcurrency = int('route-concurrency', get('route-concurrency') ?? str(file.routeConcurrency) ?? String(Math.max(1, Math.floor(cfg.upstreamConnections / 4))), 1, 65_536);
  for (const r of releaseSpecs(args, env, file)) {
    const eq = r.indexOf('=');
    const ids = (eq < 0 ? r : r.slice(eq + 1)).split(',').map((x) => x.trim()).filter(Boolean);
    if (!ids.length) throw new UsageError(`invalid --release "${r}"; expected <id>[,<id>…], all, or <service>=<id>[,<id>…]`);
    if (eq < 0) cfg.release.all = [...(cfg.release.all ?? []), ...ids];
    else cfg.release.byService[r.slice(0, eq)] = ids;
  }
  cfg.release.default = get('default-release') ?? str(file.defaultRelease);
  Object.assign(cfg.upstreams, fileUpstreams(file.upstreams));
  for (const u of upstreamSpecs(args, env)) {
    const eq = u.indexOf('=');
    if (eq <= 0) throw new UsageError(`invalid --upstream "${u}"; expected <service>=<url>`);
    cfg.upstreams[u.slice(0, eq)] = url(u.slice(eq + 1), u.slice(0, eq));
  }
  // The release each upstream speaks: requests at older releases are migrated up to it (changes.yaml).
  const speaks = args.flags.get('upstream-release') ?? (env.GATEWAY_UPSTREAM_RELEASE ? env.GATEWAY_UPSTREAM_RELEASE.split(',') : undefined)
    ?? (file.upstreamRelease && typeof file.upstreamRelease === 'object' ? Object.entries(file.upstreamRelease).map(([k, v]) => `${k}=${v}`) : []);
  for (const u of speaks) {
    const eq = u.indexOf('=');
    if (eq <= 0 || eq === u.length - 1) throw new UsageError(`invalid --upstream-release "${u}"; expected <service>=<release id>`);
    cfg.upstreamRelease[u.slice(0, eq).trim()] = u.slice(eq + 1).trim();
  }
  return cfg;
}

function releaseSpecs(args: ParsedArgs, env: NodeJS.ProcessEnv, file: Record<string, unknown>): string[] {
  if (args.flags.has('release')) return args.flags.get('release')!;
  if (env.GATEWAY_RELEASE) return [env.GATEWAY_RELEASE];
  if (typeof file.release === 'string') return [file.release];
  if (Array.isArray(file.release)) return [file.release.map(String).join(',')];
  if (file.release && typeof file.release === 'object') return Object.entries(file.release).map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : v}`);
  return [];
}

/** A repeatable flag, a comma-separated variable, or a YAML list; undefined when none is given. */
function list(args: ParsedArgs, env: NodeJS.ProcessEnv, name: string, fromFile: unknown): string[] | undefined {
  const v = args.flags.get(name) ?? (env[ENV[name]] !== undefined ? [env[ENV[name]]!] : undefined);
  const items = v ? v.flatMap((x) => x.split(',')) : Array.isArray(fromFile) ? fromFile.map(String) : fromFile === undefined ? undefined : [String(fromFile)];
  const out = items?.map((s) => s.trim()).filter(Boolean);
  if (out && name === 'cors-origin') for (const o of out) if (o !== '*' && !/^https?:\/\/[^/\s]+$/.test(o)) throw new UsageError(`invalid --cors-origin "${o}"; expected * or an origin such as https://app.example.com (scheme, host, optional port; no path)`);
  return out;
}

/** config `cors: { origins: [...] }`. */
function corsFile(v: unknown): unknown {
  if (v === undefined) return undefined;
  if (!v || typeof v !== 'object' || Array.isArray(v) || Object.keys(v).some((k) => k !== 'origins')) throw new UsageError('config cors must be a mapping with one key, origins: a list of origins or *');
  return (v as { origins?: unknown }).origins;
}

function upstreamSpecs(args: ParsedArgs, env: NodeJS.ProcessEnv): string[] {
  if (args.flags.has('upstream')) return args.flags.get('upstream')!;
  return env.GATEWAY_UPSTREAM ? env.GATEWAY_UPSTREAM.split(',').map((s) => s.trim()).filter(Boolean) : [];
}

function readConfigFile(path: string | undefined): Record<string, unknown> {
  if (!path) return {};
  let data: unknown;
  try {
    // The YAML library loads only when a config file is given.
    const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
    data = parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new UsageError(`cannot read config file ${path}: ${(e as Error).message.split('\n')[0]}`);
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data)) throw new UsageError(`config file ${path} must be a YAML mapping`);
  for (const k of Object.keys(data)) {
    if (!FILE_KEYS.includes(k)) throw new UsageError(`config file ${path}: unknown key "${k}"; valid: ${FILE_KEYS.join(', ')}`);
  }
  return data as Record<string, unknown>;
}

function fileUpstreams(u: unknown): Record<string, string> {
  if (u === undefined) return {};
  if (!u || typeof u !== 'object') throw new UsageError('config upstreams must map <service> to a URL');
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(u)) {
    if (v && typeof v === 'object') for (const [kind, x] of Object.entries(v)) out[`${k}.${kind}`] = url(String(x), `${k}.${kind}`);
    else out[k] = url(String(v), k);
  }
  return out;
}

const str = (v: unknown) => (v === undefined || v === null ? undefined : String(v));

function int(name: string, v: string, min: number, max: number): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < min || n > max) throw new UsageError(`invalid --${name} "${v}"; expected a whole number from ${min} to ${max}`);
  return n;
}

/**
 * A listen address: an IP address or a host name (RFC 1123 labels). A dotted number that is not an
 * IPv4 address (999.1.1.1) is refused here rather than sent to DNS. Whether this machine can listen
 * there is known only when it tries (see listen-error.ts).
 */
function host(v: string): string {
  if (isIP(v)) return v;
  const label = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
  if (v.length <= 253 && new RegExp(`^${label}(?:\\.${label})*\\.?$`).test(v) && !/^[\d.]+$/.test(v)) return v;
  throw new UsageError(`invalid --host "${v}"; expected an IP address (127.0.0.1, 0.0.0.0, ::1, ::) or a host name such as localhost`);
}

/** A number of processes, or "auto" for one per core. */
function workers(v: string): number {
  return v === 'auto' ? availableParallelism() : int('workers', v, 1, 256);
}

function bool(name: string, v: string): boolean {
  if (/^(1|true|yes|on)$/i.test(v)) return true;
  if (/^(0|false|no|off|)$/i.test(v)) return false;
  throw new UsageError(`invalid --${name} "${v}"; expected true or false`);
}

/** on|off (also true/false, as the YAML file may hold a boolean). */
function onOff(name: string, v: string): boolean {
  if (/^(on|true)$/i.test(v)) return true;
  if (/^(off|false)$/i.test(v)) return false;
  throw new UsageError(`invalid --${name} "${v}"; expected on or off`);
}

function oneOf<T extends string>(name: string, v: string, valid: readonly T[]): T {
  if (!valid.includes(v as T)) throw new UsageError(`invalid --${name} "${v}"; valid: ${valid.join(', ')}`);
  return v as T;
}

/** memory, or a Redis URL (redis://[user:password@]host[:port][/db], rediss:// for TLS). */
function store(v: string): string {
  if (v === 'memory') return v;
  let ok = false;
  try {
    ok = /^rediss?:$/.test(new URL(v).protocol);
  } catch {
    /* not a URL */
  }
  if (!ok) throw new UsageError(`invalid --rate-limit-store "${v}"; expected memory or redis://host:6379/0 (rediss:// for TLS)`);
  return v;
}

function level(v: string): Level {
  if (!LEVELS.includes(v as Level)) throw new UsageError(`invalid --log-level "${v}"; valid: ${LEVELS.join(', ')}`);
  return v as Level;
}

function logFormat(v: string): LogFormat {
  if (!LOG_FORMATS.includes(v as LogFormat)) throw new UsageError(`invalid --log-format "${v}"; valid: ${LOG_FORMATS.join(', ')}`);
  return v as LogFormat;
}

function url(v: string, what: string): string {
  try {
    const u = new URL(v);
    if (!/^(https?|wss?):$/.test(u.protocol)) throw new Error('protocol');
    return v;
  } catch {
    throw new UsageError(`invalid upstream URL "${v}" for ${what}; expected http(s):// or ws(s)://`);
  }
}
