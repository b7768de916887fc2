// The listen-key bridge's store for a fleet (--fleet redis://…): the listen keys live in Redis, so a key
// made through one replica renews, closes and streams through any other. Each key is a Redis key
// holding its owner, expiring with it; each owner has a sorted set of its keys (its bound, its newest),
// and one sorted set holds every key by its expiry (the gateway's total bound). Every change is one Lua
// script, so two replicas never half-apply one. A key closed or revoked leaves a tombstone for a minute;
// each replica looks, every `pollMs`, at the keys its own clients stream, and ends the streams of a key
// that is gone (closed, revoked, or else expired: the old expiry event). A margin key keeps its account
// beside it (the scope's id), so its renewals and streams find that account on any replica. Each replica
// holds its own upstream subscriptions (the gateway's own, and one per margin account it streams, with a
// token it obtains itself) and counts its own streams per token. Redis away: the calls answer 503.
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { redisOptions } from '../../redis-options.js';
import { shown } from '../../setting-values.js';
import { GatewayError } from '../errors.js';
import { listenKeyMint } from './listen-keys.js';
import { accountsOf, marginScope, resubscribes, MARGIN_LISTEN_KEYS, StreamCounts, upstreamOf, type BridgeAnswer, type BridgeCall, type KeyEnd, type StoreDefinition, type StoreListener, type StoreParts, type UserDataStore } from './store.js';
import { sameAccount, type AccountScope, type TokenSubscriptions } from './token-subscriptions.js';
import type { UpstreamSubscription } from './upstream-subscription.js';

/** An account from its scope's id (the JSON of its sorted params, token-subscriptions.ts scopeOf). */
function scopeNamed(id: string): AccountScope {
  try {
    const params = JSON.parse(id) as Record<string, string>;
    return { id, params: params && typeof params === 'object' ? params : {} };
  } catch {
    return { id, params: {} };
  }
}

const PREFIX = 'catalogue-gateway:user-data:';
const KEY = `${PREFIX}key:`;
const GONE = `${PREFIX}gone:`;
const OWNER = `${PREFIX}owner:`;
/** A margin key's account (its scope's id), expiring with the key. */
const SCOPE = `${PREFIX}scope:`;
/** What CREATE answers when the token holds its bound of keys, none of them of the account asked for. */
const BOUND = '!bound';
const ALL = `${PREFIX}all`;
/** How long a closed or revoked key's tombstone tells other replicas why its streams end. */
const TOMBSTONE_MS = 60_000;

// KEYS: owner set, all set. ARGV: key prefix, new key, now, ttl, per-token bound, total bound, owner,
// scope prefix, the account's scope id ('' the gateway's own). At the bound: the newest key of the same account, renewed.
const CREATE = `
local now, ttl = tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
for _, k in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if redis.call('EXISTS', ARGV[1] .. k) == 0 then redis.call('ZREM', KEYS[1], k) end
end
local mine = redis.call('ZRANGE', KEYS[1], 0, -1)
if #mine >= tonumber(ARGV[5]) then
  for i = #mine, 1, -1 do
    local k = mine[i]
    if (redis.call('GET', ARGV[8] .. k) or '') == ARGV[9] then
      redis.call('PEXPIRE', ARGV[1] .. k, ttl)
      redis.call('PEXPIRE', ARGV[8] .. k, ttl)
      redis.call('ZADD', KEYS[2], now + ttl, k)
      return k
    end
  end
  return '${BOUND}'
end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[6]) then return false end
redis.call('SET', ARGV[1] .. ARGV[2], ARGV[7], 'PX', ttl)
if ARGV[9] ~= '' then redis.call('SET', ARGV[8] .. ARGV[2], ARGV[9], 'PX', ttl) end
redis.call('ZADD', KEYS[1], now, ARGV[2])
redis.call('ZADD', KEYS[2], now + ttl, ARGV[2])
return ARGV[2]
`;
// KEYS: the key, all set, its scope. ARGV: owner, now, ttl, the key's name.
const RENEW = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[3]))
redis.call('ZADD', KEYS[2], tonumber(ARGV[2]) + tonumber(ARGV[3]), ARGV[4])
return 1
`;
// KEYS: the key, its tombstone, owner set, all set, its scope. ARGV: owner, the key's name, tombstone ms.
const CLOSE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1], KEYS[5])
redis.call('ZREM', KEYS[3], ARGV[2])
redis.call('ZREM', KEYS[4], ARGV[2])
redis.call('SET', KEYS[2], 'closed', 'PX', tonumber(ARGV[3]))
return 1
`;
// KEYS: owner set, all set. ARGV: key prefix, tombstone prefix, owner, tombstone ms, scope prefix. Returns the keys revoked.
const REVOKE = `
local out = {}
for _, k in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if redis.call('GET', ARGV[1] .. k) == ARGV[3] then
    redis.call('DEL', ARGV[1] .. k, ARGV[5] .. k)
    redis.call('SET', ARGV[2] .. k, 'revoked', 'PX', tonumber(ARGV[4]))
    out[#out + 1] = k
  end
  redis.call('ZREM', KEYS[2], k)
end
redis.call('DEL', KEYS[1])
return out
`;

type Client = Redis & {
  udCreate(owner: string, all: string, ...args: (string | number)[]): Promise<string | null>;
  udRenew(key: string, all: string, scope: string, ...args: (string | number)[]): Promise<number>;
  udClose(key: string, gone: string, owner: string, all: string, scope: string, ...args: (string | number)[]): Promise<number>;
  udRevoke(owner: string, all: string, ...args: (string | number)[]): Promise<string[]>;
};

const require = createRequire(import.meta.url);

export class RedisStore implements UserDataStore {
  private readonly client: Client;
  private upstream: UpstreamSubscription;
  private readonly streams: StreamCounts;
  /** The release of each subscription held, by account ('' the gateway's own). */
  private readonly holding = new Map<string, () => void>();
  /** The margin accounts this replica streams, each with its own token-made subscription. */
  private accounts: TokenSubscriptions | undefined;
  private readonly poll: NodeJS.Timeout;
  private readonly name: string;
  private down = false;
  /** Until Redis first answers (or 2 s pass): the first calls wait for it rather than answer 503 at start-up. */
  private readonly starting: Promise<void>;

  constructor(private def: StoreDefinition, private readonly parts: StoreParts, url: string, private readonly listener: StoreListener & { watching(): Iterable<string> }, pollMs = 1000) {
    const { Redis: Ctor } = require('ioredis') as typeof import('ioredis');
    this.client = new Ctor(url, redisOptions(1000)) as Client;
    this.name = shown(url, true);
    this.client.on('error', (e: Error) => this.trouble(e));
    this.starting = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2000);
      timer.unref();
      this.client.once('ready', () => { clearTimeout(timer); resolve(); });
    });
    this.client.defineCommand('udCreate', { numberOfKeys: 2, lua: CREATE });
    this.client.defineCommand('udRenew', { numberOfKeys: 3, lua: RENEW });
    this.client.defineCommand('udClose', { numberOfKeys: 5, lua: CLOSE });
    this.client.defineCommand('udRevoke', { numberOfKeys: 2, lua: REVOKE });
    this.upstream = upstreamOf(def, parts);
    this.accounts = accountsOf(def, parts);
    this.streams = new StreamCounts(() => this.def.limits.streamsPerToken);
    this.poll = setInterval(() => void this.look(), pollMs);
    this.poll.unref();
  }

  async act(action: string, owner: string, key: string, call?: BridgeCall): Promise<BridgeAnswer> {
    const { limits } = this.def;
    const margin = call?.bridge === MARGIN_LISTEN_KEYS ? call : undefined;
    if (action === 'create') {
      const scope = margin && marginScope(this.accounts, margin);
      const refused = scope && await this.accounts!.ensure(scope); // the account exists: a token came for it
      if (refused) return refused;
      const made = await this.call(() => this.client.udCreate(OWNER + owner, ALL, KEY, listenKeyMint(), Date.now(), limits.expiresAfterMs, limits.keysPerToken, limits.keys, owner, SCOPE, scope?.id ?? ''));
      if (made === null) throw new GatewayError('overloaded', `The gateway holds its bound of ${limits.keys} listen keys (GATEWAY_USER_DATA_KEYS); close unused ones or retry later.`, { 'retry-after': '60' });
      if (made === BOUND) throw new GatewayError('tooManyRequests', `Client token "${owner}" holds ${limits.keysPerToken} listen keys, the most it may (GATEWAY_USER_DATA_KEYS_PER_TOKEN), none of them for this account: close one first.`);
      return { status: 200, body: { listenKey: made } };
    }
    // A key answers only to calls of its own account (as in the in-process store).
    const sid = await this.call(() => this.client.get(SCOPE + key));
    if (!sameAccount(sid ? scopeNamed(sid) : undefined, margin && (margin.scope ?? {}), call?.params ?? {})) throw new GatewayError('invalid', 'This listenKey does not exist.');
    const done = action === 'renew' ? await this.call(() => this.client.udRenew(KEY + key, ALL, SCOPE + key, owner, Date.now(), limits.expiresAfterMs, key))
      : action === 'close' ? await this.call(() => this.client.udClose(KEY + key, GONE + key, OWNER + owner, ALL, SCOPE + key, owner, key, TOMBSTONE_MS))
        : 0;
    if (!done) throw new GatewayError('invalid', 'This listenKey does not exist.');
    if (action === 'close') this.listener.ended(key, 'closed');
    return { status: 200, body: {} };
  }

  async open(owner: string, keys: readonly string[]): Promise<string[]> {
    const [owners, scopes] = keys.length ? await this.call(() => Promise.all([this.client.mget(keys.map((k) => KEY + k)), this.client.mget(keys.map((k) => SCOPE + k))])) : [[], []];
    if (!owners.length || owners.some((o) => o !== owner)) throw new GatewayError('invalid', 'This listenKey does not exist.');
    // A margin key made through another replica: this replica gets its own token for the account.
    for (const sid of new Set(scopes)) {
      if (!sid || this.accounts?.known(sid)) continue;
      if (!this.accounts || await this.accounts.ensure(scopeNamed(sid))) throw new GatewayError('invalid', 'This listenKey does not exist.');
    }
    this.streams.open(owner);
    return scopes.map((s) => s ?? '');
  }

  shut(owner: string): void { this.streams.shut(owner); }

  hold(account: string): void {
    if (this.holding.has(account)) return;
    const sub = account === '' ? this.upstream : this.accounts?.known(account) ? this.accounts.subscription(account) : undefined;
    if (sub) this.holding.set(account, sub.hold((e) => this.listener.event(e, account)));
  }

  release(account: string): void {
    this.holding.get(account)?.();
    this.holding.delete(account);
  }

  revoke(owners: readonly string[]): void {
    for (const owner of owners) {
      void this.client.udRevoke(OWNER + owner, ALL, KEY, GONE, owner, TOMBSTONE_MS, SCOPE)
        .then((keys) => { for (const k of keys) this.listener.ended(k, 'revoked'); }, (e: Error) => this.trouble(e));
    }
  }

  define(def: StoreDefinition): void {
    const was = this.def;
    this.def = def;
    if (!resubscribes(was, def)) return;
    const held = [...this.holding.keys()];
    for (const a of held) this.release(a);
    this.upstream.close();
    this.upstream = upstreamOf(def, this.parts);
    this.accounts?.close();
    this.accounts = accountsOf(def, this.parts);
    for (const a of held) this.hold(a);
  }

  close(): void {
    clearInterval(this.poll);
    this.upstream.close();
    this.accounts?.close();
    this.client.disconnect();
  }

  /** The keys this replica's clients stream: any gone from Redis ends their streams, with its tombstone's reason. */
  private async look(): Promise<void> {
    const keys = [...this.listener.watching()];
    if (!keys.length || this.client.status !== 'ready') return;
    try {
      const [owners, gone] = await Promise.all([this.client.mget(keys.map((k) => KEY + k)), this.client.mget(keys.map((k) => GONE + k))]);
      keys.forEach((k, i) => { if (owners[i] === null) this.listener.ended(k, (gone[i] as KeyEnd | null) ?? 'expired'); });
    } catch (e) {
      this.trouble(e as Error);
    }
  }

  private async call<T>(run: () => Promise<T>): Promise<T> {
    await this.starting;
    if (this.client.status !== 'ready') throw this.unavailable(this.client.status);
    try {
      const out = await run();
      if (this.down) this.parts.logger.info(`user data: listen-key store ${this.name} reachable again`);
      this.down = false;
      return out;
    } catch (e) {
      this.trouble(e as Error);
      throw this.unavailable((e as Error).message);
    }
  }

  private unavailable(why: string): GatewayError {
    return new GatewayError('overloaded', `The gateway's listen-key store is unavailable (${why.slice(0, 80)}); retry later.`, { 'retry-after': '2' });
  }

  private trouble(e: Error): void {
    if (this.down) return;
    this.down = true;
    this.parts.logger.warn(`user data: listen-key store ${this.name} unreachable (${e.message.slice(0, 200)}); listen-key calls answer 503 meanwhile`);
  }
}
