// Every setting of the gateway, declared once: its flag, environment variable, config-file key,
// default, how its value is read, one line of help, and whether a reload can change it. The CLI
// parser, `--help`, the config file's key check, the defaults and the configuration table of docs/configuration.md
// are all derived from this list (src/config.ts reads it; tools/settings-table.ts renders the
// table, and test/structure/settings-table.test.ts fails when the page and this list differ).
import { BUILDER_PRIORITIES } from './builders/pool/background-priority.js';
import { DEFAULT_DEADLINE_MS, DEFAULT_QUEUE_PER_THREAD, defaultThreads } from './builders/pool/defaults.js';
import { DEFAULT_CATALOGUE_DIR, defaultCacheDir } from './catalogue/model-cache.js';
import { ADMIN_RELOAD, type AdminReload } from './gateway/admin/admin-modes.js';
import { DEFAULT_REWRITE_LIMIT } from './upstream/proxy.js';
import { defaultLogFormat, LEVELS, LOG_FORMATS } from './log.js';
import { bool, choice, fleetStore, host, int, intOrAuto, onOff, redisStore, workers } from './setting-values.js';

export type { AdminReload };

export interface Setting {
  /** The GatewayConfig field and the config file's key (camelCase). */
  key: string;
  flag: string;
  env: string;
  /** Placeholder of the flag's value in --help ('' = a flag without a value, i.e. a boolean). */
  arg: string;
  /** The default as given text (parsed like any value), or computed from settings read before it. */
  default?: string | ((cfg: Record<string, unknown>) => string);
  /** How the default reads in --help and docs/configuration.md when it is not a plain value. */
  defaultText?: string;
  /** Turns the text given (flag, variable or file value) into the setting's value; throws UsageError naming `--flag`. */
  parse?: (value: string, flag: string) => unknown;
  /** Read by its own code in config.ts (lists, maps, release specs): declared here for help, names and docs. */
  special?: 'release' | 'upstreams' | 'list' | 'signing' | 'credentials' | 'config';
  /** False: read once at start-up; a reload that changes it logs "needs a restart" and keeps the old value. */
  reload: boolean;
  /** One line for --help. */
  help: string;
  /** The fuller meaning in docs/configuration.md (default: help). */
  doc?: string;
  /** A value that may carry credentials: never printed whole (a Redis URL's password). */
  secret?: boolean;
}

const ms = '<ms>';

export const SETTINGS: readonly Setting[] = [
  { key: 'release', flag: 'release', env: 'GATEWAY_RELEASE', arg: '<id>[,<id>…]|all|<service>=<id>[,<id>…]', special: 'release', defaultText: 'newest', reload: true,
    help: 'the releases served', doc: 'the releases served (see [releases](releases.md))' },
  { key: 'defaultRelease', flag: 'default-release', env: 'GATEWAY_DEFAULT_RELEASE', arg: '<id>', defaultText: 'newest served', reload: true,
    help: 'the release of a request that names none' },
  { key: 'followNewest', flag: 'follow-newest', env: 'GATEWAY_FOLLOW_NEWEST', arg: '', default: 'false', parse: bool, reload: true,
    help: 'with no --release: a reload that adds a newer release moves the served and default release to it',
    doc: 'with no `--release`, the gateway serves the newest release it started with; a reload that adds a newer release keeps serving that one and says so, unless this is on (then it moves to the newest, and the reload summary and health say so)' },
  { key: 'watch', flag: 'watch', env: 'GATEWAY_WATCH', arg: '', default: 'false', parse: bool, reload: false,
    help: 'reload on any change under the catalogue folder, the config file or the tokens file' },
  { key: 'reloadClosesWebsockets', flag: 'reload-closes-websockets', env: 'GATEWAY_RELOAD_CLOSES_WEBSOCKETS', arg: '', default: 'false', parse: bool, reload: true,
    help: 'after a reload, close (1001) open websockets whose stream, websocket API or release is no longer served' },
  { key: 'adminReload', flag: 'admin-reload', env: 'GATEWAY_ADMIN_RELOAD', arg: ADMIN_RELOAD.join('|'), default: 'loopback', parse: choice(ADMIN_RELOAD), reload: true,
    help: 'who may POST /_gateway/reload: loopback clients (and admin tokens in signing mode), admin tokens only, or nobody',
    doc: 'who may `POST /_gateway/reload`: `loopback` = clients on this machine that came through no proxy, and admin tokens in signing mode; `token` = only a client token holding the admin right (tokens file required); `off` = nobody over HTTP (SIGHUP and `--watch` still reload). See [the admin plane](operations.md#the-admin-plane)' },
  { key: 'host', flag: 'host', env: 'GATEWAY_HOST', arg: '<h>', default: '127.0.0.1', parse: host, reload: false,
    help: 'listen address: an IP address (0.0.0.0 = every interface) or a host name' },
  { key: 'port', flag: 'port', env: 'GATEWAY_PORT', arg: '<n>', default: '8080', parse: int(0, 65535), reload: false,
    help: 'listen port (0 = any free port)' },
  { key: 'tlsCert', flag: 'tls-cert', env: 'GATEWAY_TLS_CERT', arg: '<file>', defaultText: 'none (plain HTTP)', reload: false,
    help: 'serve https:// and wss:// on --port with this PEM certificate (its chain after it); needs --tls-key',
    doc: 'serve `https://` and `wss://` on `--port` with this PEM certificate (the chain after it); needs `--tls-key`. TLS 1.2 at least; plain HTTP sent to the port is answered 400 and closed. The path needs a restart; every reload (SIGHUP, `POST /_gateway/reload`) reads the file again and new connections get it, open ones keep theirs (see [TLS](tls.md))' },
  { key: 'tlsKey', flag: 'tls-key', env: 'GATEWAY_TLS_KEY', arg: '<file>', defaultText: 'none', reload: false,
    help: "the PEM private key of --tls-cert; read again on every reload",
    doc: 'the PEM private key of `--tls-cert`; read again on every reload, like the certificate. Never logged' },
  { key: 'tlsClientCa', flag: 'tls-client-ca', env: 'GATEWAY_TLS_CLIENT_CA', arg: '<file>', defaultText: 'none', reload: false,
    help: 'require client certificates signed by a CA of this PEM file (mTLS); a handshake without one is refused',
    doc: 'require a client certificate signed by a CA of this PEM file (mutual TLS): a handshake without one, or with one from another CA, is refused. A tokens-file entry may name a certificate instead of a bearer token (see [signing and tokens](signing-and-tokens.md#client-certificates)). Probes then need `--health-port`. Read again on every reload' },
  { key: 'healthPort', flag: 'health-port', env: 'GATEWAY_HEALTH_PORT', arg: '<n>', defaultText: 'none', parse: int(0, 65535), reload: false,
    help: 'a plain-HTTP listener on --host serving only /_gateway/health and /_gateway/ready, for probes (0 = any free port)',
    doc: 'a second, plain-HTTP listener on `--host` that serves `/_gateway/health` and `/_gateway/ready` and answers 404 to anything else: for probes that cannot present a client certificate (`--tls-client-ca`) or speak TLS (0 = any free port)' },
  { key: 'catalogue', flag: 'catalogue', env: 'GATEWAY_CATALOGUE', arg: '<dir>', default: DEFAULT_CATALOGUE_DIR, defaultText: './catalogue', reload: true,
    help: 'the catalogue folder' },
  { key: 'cacheDir', flag: 'cache-dir', env: 'GATEWAY_CACHE_DIR', arg: '<dir>', default: () => defaultCacheDir(), defaultText: 'node_modules/.cache/catalogue-gateway', reload: false,
    help: "folder of the catalogue's derived files (checked model, YAML parses, validators); the catalogue tools read the variable too",
    doc: "folder of the catalogue's derived files: the checked model, YAML parses, schema verdicts and validator modules, each bounded (see [operations](operations.md#the-cache-folder)); deleting it costs one slower start. The catalogue tools (`lint`, `diff`, …) read the variable too" },
  { key: 'upstreams', flag: 'upstream', env: 'GATEWAY_UPSTREAM', arg: '<service>[.rest|.streams|.wsApi]=<url>', special: 'upstreams', defaultText: "service.yaml's upstreams", reload: true,
    help: 'upstream base URLs (repeatable; the variable comma-separated)',
    doc: 'upstream base URLs, all three alike: the request\'s path and query are appended (see [websockets](websockets.md)); repeatable, the variable comma-separated, the file a map' },
  { key: 'upstreamRelease', flag: 'upstream-release', env: 'GATEWAY_UPSTREAM_RELEASE', arg: '<service>=<id>', special: 'upstreams', defaultText: "service.yaml's upstreamRelease, else the newest", reload: true,
    help: 'the release each upstream implements: requests pinned to older releases are migrated up to it (repeatable)',
    doc: 'the release the upstream implements: requests pinned to older releases are carried up to it by the catalogue\'s version changes (see [version changes](version-changes.md)); repeatable, the variable comma-separated, the file a map' },
  { key: 'strict', flag: 'strict', env: 'GATEWAY_STRICT', arg: '', default: 'false', parse: bool, reload: true,
    help: 'also reject parameters the catalogue does not know' },
  { key: 'timeoutMs', flag: 'timeout', env: 'GATEWAY_TIMEOUT_MS', arg: ms, default: '10000', parse: int(50, 600_000), reload: true,
    help: 'total deadline of a request from its arrival (then 408 before the body is in, 504 after)',
    doc: 'total deadline of a request from its arrival (waiting behind pipelined requests, its body, the upstream or builder): 408 before the body is in, 504 after, the answer cut if it had begun; accurate to ±100 ms from 100 ms up' },
  { key: 'bodyLimit', flag: 'body-limit', env: 'GATEWAY_BODY_LIMIT', arg: '<bytes>', default: String(1024 * 1024), parse: int(1, 1024 ** 3), reload: true,
    help: 'request body limit (then 413)' },
  { key: 'migratedAnswerLimit', flag: 'migrated-answer-limit', env: 'GATEWAY_MIGRATED_ANSWER_LIMIT', arg: '<bytes>', default: String(DEFAULT_REWRITE_LIMIT), parse: int(1024, 1024 ** 3), reload: true,
    help: 'largest upstream answer the gateway holds in memory to carry back to an older release (then 502)',
    doc: 'the largest upstream answer to a migrated request that the gateway holds in memory to carry it back to the client\'s release (see Version changes): a longer one is cut off as it arrives and the client gets 502 in the service\'s error envelope (the request was forwarded; its answer is not passed on). Answers of routes nothing migrates are streamed through whatever their size' },
  { key: 'logLevel', flag: 'log-level', env: 'GATEWAY_LOG_LEVEL', arg: LEVELS.join('|'), default: 'info', parse: choice(LEVELS), reload: false,
    help: 'log lines go to stderr; they never hold headers, query strings, bodies or secrets' },
  { key: 'logFormat', flag: 'log-format', env: 'GATEWAY_LOG_FORMAT', arg: LOG_FORMATS.join('|'), default: () => defaultLogFormat(), defaultText: 'json (pretty on a terminal)', parse: choice(LOG_FORMATS), reload: false,
    help: 'pino JSON lines, one access line per request; pretty for people' },
  { key: 'rateLimit', flag: 'rate-limit', env: 'GATEWAY_RATE_LIMIT', arg: 'on|off', default: 'on', parse: onOff, reload: true,
    help: "enforce the catalogue's rate limits (service.yaml rateLimits) before forwarding" },
  { key: 'rateLimitStore', flag: 'rate-limit-store', env: 'GATEWAY_RATE_LIMIT_STORE', arg: 'memory|redis://host:6379/0', default: 'memory', parse: redisStore, reload: true, secret: true,
    help: 'where the rate-limit counters live: this process, or Redis shared by every replica' },
  { key: 'rateLimitFail', flag: 'rate-limit-fail', env: 'GATEWAY_RATE_LIMIT_FAIL', arg: 'open|closed', default: 'open', parse: choice(['open', 'closed'] as const), reload: true,
    help: 'Redis unreachable or slow: open = count in this process meanwhile, closed = refuse (503)' },
  { key: 'fleet', flag: 'fleet', env: 'GATEWAY_FLEET', arg: 'off|redis://host:6379/0', default: 'off', parse: fleetStore, reload: false, secret: true,
    help: 'replicas sharing one catalogue identity over Redis: a reload on any replica reloads the others from their own copies',
    doc: 'replicas that agree on one catalogue: a reload on any replica publishes its catalogue hash over Redis and the others reload from their own copies (swapping only if theirs has that hash); `/_gateway/health` shows the fleet\'s hashes (see [fleet](fleet.md))' },
  { key: 'rateLimitRedisTimeoutMs', flag: 'rate-limit-redis-timeout', env: 'GATEWAY_RATE_LIMIT_REDIS_TIMEOUT_MS', arg: ms, default: '50', parse: int(1, 10_000), reload: true,
    help: 'a Redis command unanswered this long makes Redis count as unresponsive: --rate-limit-fail applies at once until it answers again' },
  { key: 'metricsMaxSeries', flag: 'metrics-max-series', env: 'GATEWAY_METRICS_MAX_SERIES', arg: '<n>', default: '400', parse: int(10, 100_000), reload: true,
    help: 'labelled histogram series kept per process; further label sets are counted in one overflow series (gateway_metrics_overflow_total)' },
  { key: 'workers', flag: 'workers', env: 'GATEWAY_WORKERS', arg: '<n>|auto', default: '1', parse: workers, reload: false,
    help: 'processes serving the port (node:cluster; auto = one per core); a worker that dies is replaced' },
  { key: 'wsMaxBuffered', flag: 'ws-max-buffered', env: 'GATEWAY_WS_MAX_BUFFERED', arg: '<bytes>', default: String(4 * 1024 * 1024), parse: int(1024, 1024 ** 3), reload: true,
    help: 'bytes that may wait for a slow websocket peer before it is closed (1008)',
    doc: 'what may wait for a slow websocket peer: every frame the gateway writes (relayed data, its own error frames, pings, pongs) counts, plus 512 bytes per frame; a client over it is closed (1008), an upstream over it stops the client being read' },
  { key: 'wsMaxHoldMs', flag: 'ws-max-hold', env: 'GATEWAY_WS_MAX_HOLD_MS', arg: ms, default: '10000', parse: int(100, 3_600_000), reload: true,
    help: 'how long a websocket client is held (not read) for an upstream that does not take its frames; then both are closed' },
  { key: 'userDataKeysPerToken', flag: 'user-data-keys-per-token', env: 'GATEWAY_USER_DATA_KEYS_PER_TOKEN', arg: '<n>', default: '10', parse: int(1, 100), reload: false,
    help: 'listen keys one client token may hold at once (1-100); past it, creating one answers the token\'s newest key again',
    doc: 'listen keys one client token may hold at once, at most 100 (signing mode, a client pinned where listen keys were alive; see docs/user-data.md); past it, creating another answers the token\'s newest key again, renewed, as the exchange answered a second creation with the account\'s active key; also the most listen keys one stream connection may carry' },
  { key: 'userDataStreamsPerToken', flag: 'user-data-streams-per-token', env: 'GATEWAY_USER_DATA_STREAMS_PER_TOKEN', arg: '<n>', default: '100', parse: int(1, 1000), reload: false,
    help: 'listen-key stream connections one client token may hold open at once; past it a new one is refused (429)',
    doc: 'listen-key stream connections one client token may hold open at once (signing mode; see docs/user-data.md): past it a new one is refused `429` naming the bound, so one token cannot fill the connection cap with streams that cost the upstream nothing' },
  { key: 'userDataSubscriptionsPerToken', flag: 'user-data-subscriptions-per-token', env: 'GATEWAY_USER_DATA_SUBSCRIPTIONS_PER_TOKEN', arg: '<n>', default: '4', parse: int(1, 1000), reload: false,
    help: 'user-data subscriptions one client token may hold with the gateway\'s key at once, over all its websocket-API connections; past it a subscribe frame is refused (429)',
    doc: 'user-data subscriptions one client token may hold with the gateway\'s key at once, over all its websocket-API connections (signing mode; the methods marked `subscription:` in the catalogue; see docs/user-data.md): past it the gateway answers a subscribe frame itself, `429` naming the bound, and sends nothing upstream. A place is taken when the frame goes up, kept if the exchange answers with a subscription, and given back by an unsubscribe the exchange accepts or when the connection closes. The default leaves a bot room for its subscription, a reconnect that overlaps the old connection and a listen-token renewal in flight; per process (each of `--workers` counts its own)' },
  { key: 'userDataKeys', flag: 'user-data-keys', env: 'GATEWAY_USER_DATA_KEYS', arg: '<n>', default: '1000', parse: int(1, 1_000_000), reload: false,
    help: 'listen keys the gateway holds at once, all tokens together; past it, creating one is refused (503)' },
  { key: 'userDataLingerMs', flag: 'user-data-linger', env: 'GATEWAY_USER_DATA_LINGER_MS', arg: ms, default: '1000', parse: int(0, 600_000), reload: false,
    help: 'how long the gateway keeps its upstream user-data subscription after the last listen-key stream closed',
    doc: 'how long the gateway keeps its own upstream user-data subscription, the one that feeds every listen-key stream, after the last listen-key stream closed (clients that reconnect at once cost the upstream nothing); the listen-key bridge holds at most one subscription for the gateway\'s key whatever its clients do, and tries to subscribe at most once a second (the subscriptions clients make themselves are bounded by `--user-data-subscriptions-per-token`)' },
  { key: 'corsOrigins', flag: 'cors-origin', env: 'GATEWAY_CORS_ORIGINS', arg: '<origin>|*', special: 'list', defaultText: '*', reload: true,
    help: 'origins allowed to read answers (repeatable; * = any origin, public answers only)',
    doc: 'origins allowed to read answers (repeatable; the variable comma-separated; the file `cors: { origins: [...] }`); `*` applies to public answers only: an endpoint that needs a key or signature, anything in signing mode, and the admin routes are granted only to a listed origin (admin routes: never)' },
  { key: 'allowedHosts', flag: 'allowed-host', env: 'GATEWAY_ALLOWED_HOSTS', arg: '<name>', special: 'list', defaultText: 'loopback names and --host', reload: true,
    help: 'host names a request to a signed service or an admin route may be addressed to (DNS-rebinding guard; repeatable)' },
  { key: 'maxPipelined', flag: 'max-pipelined', env: 'GATEWAY_MAX_PIPELINED', arg: '<n>', default: '16', parse: int(1, 1024), reload: true,
    help: 'requests of one connection in progress at once; further pipelined requests wait in the socket' },
  { key: 'maxConnections', flag: 'max-connections', env: 'GATEWAY_MAX_CONNECTIONS', arg: '<n>|auto', default: 'auto', parse: intOrAuto(1, 1_000_000), reload: false,
    help: 'open client connections; the next one gets a 503 and is closed (auto: the descriptor limit less what the upstream pool, files and builder threads need)',
    doc: 'open client connections; the next one gets a 503 written on the socket and is closed. `auto`: the descriptor limit less what the upstream pool, files and builder threads need; the start-up line names the figures (see [operations](operations.md#overload))' },
  { key: 'overloadHighWater', flag: 'overload-high', env: 'GATEWAY_OVERLOAD_HIGH', arg: '<%>', default: '80', parse: int(2, 100), reload: false,
    help: 'open connections, in % of the cap, past which the overload manager shortens timeouts and closes idle connections' },
  { key: 'overloadLowWater', flag: 'overload-low', env: 'GATEWAY_OVERLOAD_LOW', arg: '<%>', default: (c) => String(Math.min(70, Number(c.overloadHighWater) - 1)), defaultText: '70 (below --overload-high)', parse: int(1, 99), reload: false,
    help: 'open connections, in % of the cap, below which the overload manager restores the configured timeouts' },
  { key: 'overloadTimeoutMs', flag: 'overload-timeout', env: 'GATEWAY_OVERLOAD_TIMEOUT_MS', arg: ms, default: '3000', parse: int(100, 600_000), reload: false,
    help: 'header and keep-alive idle timeout while overloaded (never above the configured ones)' },
  { key: 'headersTimeoutMs', flag: 'headers-timeout', env: 'GATEWAY_HEADERS_TIMEOUT_MS', arg: ms, default: '10000', parse: int(100, 600_000), reload: false,
    help: 'time to send a whole request head, however slowly it trickles (then 408 and close)' },
  { key: 'keepAliveTimeoutMs', flag: 'keep-alive-timeout', env: 'GATEWAY_KEEP_ALIVE_TIMEOUT_MS', arg: ms, default: '65000', parse: int(100, 3_600_000), reload: false,
    help: 'idle keep-alive connections are closed after this' },
  { key: 'upstreamConnections', flag: 'upstream-connections', env: 'GATEWAY_UPSTREAM_CONNECTIONS', arg: '<n>', default: '256', parse: int(1, 65_536), reload: true,
    help: 'connections to each upstream origin (a reload that changes it, or the upstreams, brings a new pool; the old one drains)' },
  { key: 'routeConcurrency', flag: 'route-concurrency', env: 'GATEWAY_ROUTE_CONCURRENCY', arg: '<n>', default: (c) => String(Math.max(1, Math.floor(Number(c.upstreamConnections) / 2))), defaultText: 'half of --upstream-connections', parse: int(1, 65_536), reload: true,
    help: 'ceiling of an endpoint\'s adaptive limit of requests at the upstream (a hung endpoint cannot take the pool); past the limit requests queue' },
  { key: 'routeQueue', flag: 'route-queue', env: 'GATEWAY_ROUTE_QUEUE', arg: '<n>', default: '4096', parse: int(0, 1_000_000), reload: true,
    help: 'requests one endpoint may have waiting for a slot at the upstream; beyond it 503 + Retry-After at once' },
  { key: 'routeQueueWaitMs', flag: 'route-queue-wait', env: 'GATEWAY_ROUTE_QUEUE_WAIT_MS', arg: ms, default: (c) => String(Math.max(1, Math.floor(Number(c.timeoutMs) / 2))), defaultText: 'half of --timeout', parse: int(1, 600_000), reload: true,
    help: 'how long a request waits for a slot at the upstream; then 503 + Retry-After (the request\'s deadline still applies)' },
  { key: 'shutdownGraceMs', flag: 'shutdown-grace', env: 'GATEWAY_SHUTDOWN_GRACE_MS', arg: ms, default: '10000', parse: int(0, 600_000), reload: true,
    help: 'how long a stopping gateway waits for in-flight requests (it stops as soon as they are done)' },
  { key: 'acceptGraceMs', flag: 'accept-grace', env: 'GATEWAY_ACCEPT_GRACE_MS', arg: ms, default: '2000', parse: int(0, 60_000), reload: true,
    help: 'how long a stopping gateway may keep accepting (idempotent requests 503, the rest served) until no connection comes for 250 ms, so a balancer that learns only from answers loses nothing; 0 = stop accepting at once',
    doc: 'after SIGTERM the gateway keeps its listener open until no new connection came for 250 ms, at most this long, instead of closing it at once: closing it at once resets every connection the kernel had accepted but the gateway not yet taken, and a load balancer that learns of a stopping server only from its answers (nginx, HAProxy without health checks) cannot retry a POST it sent on one (see [fleet](fleet.md)). Meanwhile readiness answers 503, requests with an idempotent method (GET, HEAD, OPTIONS, PUT, DELETE) are answered 503 + `Retry-After: 1` before anything is forwarded, so the balancer retries them on another replica and marks this one down, and POST and PATCH (which a balancer does not retry) are served; every answer closes its connection. With nothing in front (or Kubernetes after its preStop hook, when the Service has stopped sending) no connection comes and stopping takes 250 ms more. 0 = close the listener at once' },
  { key: 'workerStallMs', flag: 'worker-stall', env: 'GATEWAY_WORKER_STALL_MS', arg: ms, default: '10000', parse: int(100, 600_000), reload: false,
    help: 'with --workers: a worker whose event loop sent no heartbeat for this long is killed and replaced' },
  { key: 'builderThreads', flag: 'builder-threads', env: 'GATEWAY_BUILDER_THREADS', arg: '<n>', default: () => String(defaultThreads()), defaultText: 'cores − 1 (≥ 1)', parse: int(1, 256), reload: false,
    help: 'worker threads running transaction builds' },
  { key: 'builderPriority', flag: 'builder-priority', env: 'GATEWAY_BUILDER_PRIORITY', arg: BUILDER_PRIORITIES.join('|'), default: 'background', parse: choice(BUILDER_PRIORITIES), reload: false,
    help: "builder threads' priority: background = nice 19, idle = also SCHED_IDLE, normal = the process's",
    doc: "builder threads' scheduling priority: `background` = nice 19, so the request loop runs first when cores are short (builds slow down under load, they do not stop); `idle` = also Linux's SCHED_IDLE (via util-linux's `chrt`): no CPU while anything else on the host is runnable, for a host running only the gateway; `normal` = the process's priority" },
  { key: 'builderQueue', flag: 'builder-queue', env: 'GATEWAY_BUILDER_QUEUE', arg: '<n>', default: (c) => String(DEFAULT_QUEUE_PER_THREAD * Number(c.builderThreads)), defaultText: `${DEFAULT_QUEUE_PER_THREAD} × threads`, parse: int(1, 100_000), reload: false,
    help: 'builds waiting for a thread; beyond it 503 + Retry-After' },
  { key: 'builderDeadlineMs', flag: 'builder-deadline', env: 'GATEWAY_BUILDER_DEADLINE_MS', arg: ms, default: String(DEFAULT_DEADLINE_MS), parse: int(100, 600_000), reload: false,
    help: 'wall clock per build; past it the thread is replaced and the client gets 503' },
  { key: 'tokensFile', flag: 'tokens-file', env: 'GATEWAY_TOKENS_FILE', arg: '<file>', defaultText: 'none', reload: true,
    help: 'client tokens and their allow-lists (see docs/signing-and-tokens.md)' },
  { key: 'signing', flag: '', env: 'EXCHANGE_*', arg: '', special: 'signing', defaultText: 'off', reload: true,
    help: 'signing mode: the exchange key held by the gateway (variables EXCHANGE_API_KEY, … or the file\'s signing:)',
    doc: 'signing mode: the exchange account\'s key held by the gateway (`EXCHANGE_API_KEY`, `EXCHANGE_API_SECRET` or `EXCHANGE_PRIVATE_KEY_FILE`, …; the file\'s `signing:` section); see [signing and tokens](signing-and-tokens.md)' },
  { key: 'credentials', flag: '', env: 'GATEWAY_CREDENTIAL_<SERVICE>', arg: '', special: 'credentials', defaultText: 'none', reload: true,
    help: "credentials the gateway holds for upstreams that authenticate callers themselves (e.g. GATEWAY_CREDENTIAL_GITHUB, or the file's credentials:)",
    doc: "a credential the gateway holds for a service whose service.yaml declares `credentials.inject` (`GATEWAY_CREDENTIAL_<SERVICE>`, the id upper-cased with `-` as `_`, e.g. `GATEWAY_CREDENTIAL_GITHUB`; the file's `credentials: { github: … }`): sent upstream on requests that present a gateway token, in place of the client's Authorization; see [serving an API of your own](own-api.md)" },
  { key: 'configFile', flag: 'config', env: 'GATEWAY_CONFIG', arg: '<file.yaml>', special: 'config', defaultText: 'none', reload: false,
    help: 'these settings in a YAML file, by their camelCase keys; an unknown key is an error naming the valid ones',
    doc: 'the settings in a YAML file by the keys of this table (`release` may be a list or a map, `upstreams` a map, `cors: { origins: [...] }`); an unknown key is an error naming the valid ones' },
];

/** The config file's keys (the file spells CORS as `cors: { origins }`). */
export const FILE_KEYS: readonly string[] = SETTINGS.filter((s) => s.special !== 'config').map((s) => (s.key === 'corsOrigins' ? 'cors' : s.key));

export const settingByFlag = new Map(SETTINGS.filter((s) => s.flag).map((s) => [s.flag, s]));
