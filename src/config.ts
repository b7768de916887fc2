// Gateway configuration from, in rising precedence: defaults, a --config YAML file, environment
// variables (GATEWAY_*), command-line flags. Every bad value is a UsageError naming the valid choices.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { flag, parseArgs, UsageError, type ParsedArgs } from './args.js';
import type { BuilderPriority } from './builders/pool/background-priority.js';
import type { ReleaseSpec } from './catalogue/pin.js';
import type { Level, LogFormat } from './log.js';
import { defaultCacheDir } from './catalogue/model-cache.js';
import { FILE_KEYS, SETTINGS, settingByFlag, type AdminReload } from './settings.js';
import { usage } from './settings-doc.js';
import { corsOrigin, upstreamUrl } from './setting-values.js';
import { readSigningSettings, type SigningSettings } from './upstream/signing/settings.js';
import { readCredentials } from './upstream/credentials.js';
import type { Secret } from './upstream/signing/secret.js';

export interface GatewayConfig {
  catalogue: string;
  /** Folder of the catalogue's derived files (GATEWAY_CACHE_DIR; default node_modules/.cache/catalogue-gateway). */
  cacheDir: string;
  /** Releases served: a list for every versioned service ('all' = every release), or per service id; default: the newest. */
  release: ReleaseSpec;
  /** With no --release: may a reload that adds a newer release move the served (and default) release to it? */
  followNewest: boolean;
  /** Who may POST /_gateway/reload: loopback clients (+ admin tokens in signing mode), admin tokens only, nobody. */
  adminReload: AdminReload;
  /** The default served release, when given (--default-release); also in release.default. */
  defaultRelease?: string;
  /** Watch the catalogue folder, the config file and the tokens file, and reload on any change. */
  watch: boolean;
  /** On reload, close websockets whose stream or method the new program no longer serves (default: they keep running). */
  reloadClosesWebsockets: boolean;
  /** The config file this configuration was read from (watched with --watch). */
  configFile?: string;
  host: string;
  port: number;
  /** PEM files of the TLS listener (paths; their contents are read at start-up and on every reload). */
  tlsCert?: string;
  tlsKey?: string;
  /** PEM CA file: client certificates signed by it are required (mTLS). */
  tlsClientCa?: string;
  /** A plain-HTTP listener serving only the health and readiness paths (undefined: none). */
  healthPort?: number;
  /** How host and port were given (--host, GATEWAY_HOST or the config key), to name them in a listen error. */
  given?: { host: string; port: string };
  /** Upstream overrides: "<service>" (REST) or "<service>.<rest|streams|wsApi>" → URL. */
  upstreams: Record<string, string>;
  strict: boolean;
  timeoutMs: number;
  bodyLimit: number;
  /** Bytes of an upstream answer held in memory to carry it back down a version change (then 502). */
  migratedAnswerLimit: number;
  logLevel: Level;
  /** Log lines as JSON (default when stderr is not a terminal) or pretty (default on a terminal). */
  logFormat: LogFormat;
  /** 'off', or the Redis URL the replicas of a fleet share (catalogue hash, reload notices). */
  fleet: string;
  /** Processes serving the port (node:cluster); 1 = this process alone. */
  workers: number;
  /** Bytes a websocket client may leave unread before it is closed (1008). */
  wsMaxBuffered: number;
  /** How long a websocket client may be held (not read) for an upstream that does not read, before both are closed (ms). */
  wsMaxHoldMs: number;
  /** Listen keys per client token (1–100), in all, and how long the upstream user-data subscription outlives its last stream (ms). */
  userDataKeysPerToken: number;
  userDataStreamsPerToken: number;
  /** User-data subscriptions per client token made with the gateway's key (websocket API). */
  userDataSubscriptionsPerToken: number;
  userDataKeys: number;
  userDataLingerMs: number;
  /** Signing mode of the exchange service (EXCHANGE_* variables or the file's `signing:`); off when absent. */
  signing?: SigningSettings;
  /** Credentials held for upstreams that authenticate callers themselves (GATEWAY_CREDENTIAL_<SERVICE>), by service id. */
  credentials: Map<string, { secret: Secret; from: string }>;
  /** Client tokens (hashed) with their allow-lists; required in signing mode off loopback. */
  tokensFile?: string;
  /** Origins allowed to read answers (CORS); '*' = any origin, for public (uncredentialed) answers only. */
  corsOrigins: string[];
  /** Host names a request to a service the gateway signs for may be addressed to (DNS-rebinding guard). */
  allowedHosts?: string[];
  /** Requests of one connection in progress at once; further pipelined requests wait in the socket. */
  maxPipelined: number;
  /** Open client connections at most; beyond it new connections get a 503 and are closed. 0 = derived from the descriptor limit at start-up. */
  maxConnections: number;
  /** Open connections, in % of the cap, past which the overload manager shortens timeouts and closes idle connections. */
  overloadHighWater: number;
  /** Open connections, in % of the cap, below which the configured timeouts are restored. */
  overloadLowWater: number;
  /** Header and keep-alive idle timeout while overloaded (ms; never above the configured ones). */
  overloadTimeoutMs: number;
  /** Time for a client to send the request headers (ms). */
  headersTimeoutMs: number;
  /** Idle keep-alive connections are closed after this long (ms). */
  keepAliveTimeoutMs: number;
  /** Connections to each upstream origin. */
  upstreamConnections: number;
  /** Ceiling of a route's adaptive limit of requests at the upstream at once; past the limit requests queue. */
  routeConcurrency: number;
  /** Requests one route may have waiting for a slot at the upstream; beyond it 503. */
  routeQueue: number;
  /** How long a request may wait for a slot at the upstream before a 503 (ms). */
  routeQueueWaitMs: number;
  /** How long a stopping gateway waits for in-flight requests (ms). */
  shutdownGraceMs: number;
  /** After SIGTERM, how long the listener stays open for a passive load balancer to stop sending (ms); 0 = closed at once. */
  acceptGraceMs: number;
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
  /** A Redis command unanswered this long (ms) counts Redis as unresponsive: --rate-limit-fail applies at once. */
  rateLimitRedisTimeoutMs: number;
  /** Labelled metric series kept; observations of further label sets go to one overflow series each. */
  metricsMaxSeries: number;
  /** The release each service's upstream speaks ("<service>" → release id; default: service.yaml upstreamRelease, else the newest). */
  upstreamRelease: Record<string, string>;
}

const FLAGS = SETTINGS.filter((s) => s.flag && s.arg).map((s) => s.flag);
const BOOLEANS = SETTINGS.filter((s) => s.flag && !s.arg).map((s) => s.flag);

/** `--help`: every flag with its value, default and one line, from the settings table. */
export const USAGE = usage();

/** The cache folder the catalogue tools use (they take no gateway flags): GATEWAY_CACHE_DIR, else the default. */
export function cacheDirFrom(env: NodeJS.ProcessEnv = process.env): string {
  return env[settingByFlag.get('cache-dir')!.env] || defaultCacheDir();
}

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
  const s = settingByFlag.get(name);
  if (s && env[s.env] !== undefined) return s.env;
  return inFile && s ? `config file key ${s.key}` : `--${name}`;
}

function fromSources(args: ParsedArgs, env: NodeJS.ProcessEnv): GatewayConfig {
  const configFile = flag(args, 'config') ?? env.GATEWAY_CONFIG;
  const file = readConfigFile(configFile);
  const cfg: Record<string, unknown> = { configFile };
  for (const s of SETTINGS) {
    if (s.special) continue;
    const text = flag(args, s.flag) ?? env[s.env] ?? str(file[s.key]) ?? (typeof s.default === 'function' ? s.default(cfg) : s.default);
    cfg[s.key] = text === undefined || !s.parse ? text : s.parse(text, s.flag);
  }
  cfg.given = { host: givenAs('host', args, env, file.host !== undefined), port: givenAs('port', args, env, file.port !== undefined) };
  cfg.signing = readSigningSettings(env, file.signing);
  cfg.credentials = readCredentials(env, file.credentials);
  cfg.corsOrigins = (list(args, env, 'cors-origin', corsFile(file.cors)) ?? ['*']).map(corsOrigin);
  cfg.allowedHosts = list(args, env, 'allowed-host', file.allowedHosts);
  cfg.release = releaseSpec(releaseSpecs(args, env, file), cfg.defaultRelease as string | undefined);
  cfg.upstreams = { ...fileUpstreams(file.upstreams), ...flagUpstreams(args, env) };
  cfg.upstreamRelease = upstreamReleases(args, env, file.upstreamRelease);
  return cfg as unknown as GatewayConfig;
}

function releaseSpec(specs: string[], defaultRelease: string | undefined): ReleaseSpec {
  const release: ReleaseSpec = { byService: {} };
  for (const r of specs) {
    const eq = r.indexOf('=');
    const ids = (eq < 0 ? r : r.slice(eq + 1)).split(',').map((x) => x.trim()).filter(Boolean);
    if (!ids.length) throw new UsageError(`invalid --release "${r}"; expected <id>[,<id>…], all, or <service>=<id>[,<id>…]`);
    if (eq < 0) release.all = [...(release.all ?? []), ...ids];
    else release.byService[r.slice(0, eq)] = ids;
  }
  release.default = defaultRelease;
  return release;
}

function flagUpstreams(args: ParsedArgs, env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const u of upstreamSpecs(args, env)) {
    const eq = u.indexOf('=');
    if (eq <= 0) throw new UsageError(`invalid --upstream "${u}"; expected <service>=<url>`);
    out[u.slice(0, eq)] = upstreamUrl(u.slice(eq + 1), u.slice(0, eq));
  }
  return out;
}

/** --upstream-release <service>=<id> (repeatable), GATEWAY_UPSTREAM_RELEASE (comma-separated), or the file's map. */
function upstreamReleases(args: ParsedArgs, env: NodeJS.ProcessEnv, fromFile: unknown): Record<string, string> {
  if (fromFile !== undefined && (!fromFile || typeof fromFile !== 'object' || Array.isArray(fromFile))) throw new UsageError('config upstreamRelease must map <service> to a release id');
  const specs = args.flags.get('upstream-release') ?? (env.GATEWAY_UPSTREAM_RELEASE ? env.GATEWAY_UPSTREAM_RELEASE.split(',') : undefined)
    ?? Object.entries((fromFile ?? {}) as Record<string, unknown>).map(([k, v]) => `${k}=${String(v)}`);
  const out: Record<string, string> = {};
  for (const u of specs) {
    const eq = u.indexOf('=');
    if (eq <= 0 || eq === u.trim().length - 1) throw new UsageError(`invalid --upstream-release "${u}"; expected <service>=<release id>`);
    out[u.slice(0, eq).trim()] = u.slice(eq + 1).trim();
  }
  return out;
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
  const variable = settingByFlag.get(name)!.env;
  const v = args.flags.get(name) ?? (env[variable] !== undefined ? [env[variable]!] : undefined);
  const items = v ? v.flatMap((x) => x.split(',')) : Array.isArray(fromFile) ? fromFile.map(String) : fromFile === undefined ? undefined : [String(fromFile)];
  return items?.map((s) => s.trim()).filter(Boolean);
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
    if (v && typeof v === 'object') for (const [kind, x] of Object.entries(v)) out[`${k}.${kind}`] = upstreamUrl(String(x), `${k}.${kind}`);
    else out[k] = upstreamUrl(String(v), k);
  }
  return out;
}

const str = (v: unknown) => (v === undefined || v === null ? undefined : String(v));
