// The fleet's keys in Redis, read as hostile: whoever can write them can write anything, so what a
// replica reads is bounded and checked here, in one place (src/server/fleet.ts decides what to do
// with it). Keys: a registry of replica names scored by heartbeat, one expiring record per replica
// holding its catalogue hash, the target (the last hash published), and the notice channel.
import type { Redis as RedisClient } from 'ioredis';

export const PREFIX = 'catalogue-gateway:fleet';
export const CHANNEL = `${PREFIX}:published`;
/** Every live replica's name, scored by its last heartbeat (ms since the epoch). */
export const REGISTRY = `${PREFIX}:replicas`;
export const RECORD = `${PREFIX}:replica:`;
export const TARGET = `${PREFIX}:target`;
/** Replicas listed at most (newest heartbeats first); more are counted as ignored. */
export const MAX_REPLICAS = 256;
/** A replica's name: host:pid:port, at most this long, of letters, digits and . _ - : [ ]. */
export const MAX_NAME = 128;
export const NAME = /^[A-Za-z0-9._:[\]-]{1,128}$/;
export const HASH = /^[0-9a-f]{16}$/;
/** Longest target record or notice read (a real one is ~120 bytes). */
export const MAX_NOTICE = 512;
/** A heartbeat this far in the future (clock skew between machines) still counts. */
export const SKEW_MS = 5000;

/**
 * The live replicas' records, read and bounded inside Redis (one round trip, at most MAX_REPLICAS
 * names of at most MAX_NAME characters, each value cut to 64 bytes), and how many were live at all.
 */
const READ_RECORDS = `
local now = tonumber(ARGV[1])
local oldest, newest = now - tonumber(ARGV[2]), now + tonumber(ARGV[3])
local live = redis.call('ZCOUNT', KEYS[1], oldest, newest)
local names = redis.call('ZREVRANGEBYSCORE', KEYS[1], newest, oldest, 'LIMIT', 0, tonumber(ARGV[4]))
local out = {}
for _, name in ipairs(names) do
  if #name <= tonumber(ARGV[5]) and not string.find(name, '[^%w%.%-_:%[%]]') then
    out[#out + 1] = name
    out[#out + 1] = redis.call('GETRANGE', ARGV[6] .. name, 0, 63)
  end
end
return { live, out }
`;

export type FleetClient = RedisClient & { fleetRecords(key: string, ...args: (string | number)[]): Promise<[number, string[]]> };

/** Teach `client` the bounded read (EVALSHA, falling back to EVAL once per connection). */
export function withRecordReader(client: RedisClient): FleetClient {
  client.defineCommand('fleetRecords', { numberOfKeys: 1, lua: READ_RECORDS });
  return client as FleetClient;
}

export interface StoreView {
  /** Well-formed live records, by name. */
  replicas: { replica: string; hash: string }[];
  /** Live records left out (malformed, or past MAX_REPLICAS). */
  ignored: number;
  /** The target record's hash, if it holds a well-formed one. */
  target: string | null;
}

/** The live replicas' records and the target, as far as they can be trusted (one round trip each). */
export async function readStore(client: FleetClient, now: number, ttlMs: number): Promise<StoreView> {
  const [[live, flat], target] = await Promise.all([
    client.fleetRecords(REGISTRY, now, ttlMs, SKEW_MS, MAX_REPLICAS, MAX_NAME, RECORD),
    client.getrange(TARGET, 0, MAX_NOTICE - 1),
  ]);
  const replicas: StoreView['replicas'] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) if (NAME.test(flat[i]) && HASH.test(flat[i + 1])) replicas.push({ replica: flat[i], hash: flat[i + 1] });
  replicas.sort((x, y) => (x.replica < y.replica ? -1 : x.replica > y.replica ? 1 : 0));
  return { replicas, ignored: Math.max(0, Number(live) - replicas.length), target: notice(target)?.hash ?? null };
}

/** A name every replica accepts: characters outside the alphabet replaced, at most MAX_NAME. */
export const replicaName = (name: string): string => name.replace(/[^A-Za-z0-9._:[\]-]/g, '_').slice(-MAX_NAME) || 'replica';

/** A target record or notice: `{"hash": "<16 hex>", …}` of at most MAX_NOTICE bytes, else nothing. */
export function notice(text: string | null): { hash: string } | undefined {
  if (!text || text.length >= MAX_NOTICE) return undefined;
  try {
    const msg = JSON.parse(text) as { hash?: unknown };
    return typeof msg?.hash === 'string' && HASH.test(msg.hash) ? { hash: msg.hash } : undefined;
  } catch {
    return undefined;
  }
}
