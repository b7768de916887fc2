// Listen keys the gateway mints itself (the listenKeys bridge of changes.yaml): opaque, unguessable
// (60 letters and digits, ~357 bits), each bound to the client token that made it, so another token
// can neither read, renew nor close it. A key lives for the stream's keepAlive.expiresAfter after its
// creation or last renewal; then it expires (onExpired: the old expiry event) and is forgotten.
// Bounded: at most `perToken` keys per token (past it, creating again answers the token's newest key,
// renewed: the exchange answered a second POST with the account's active key) and `total` in all
// (past it, refused). A key made for an account (a margin key: its scope) is that account's: the
// newest key answered again is the newest of the same account. A listen key is a credential: it is never logged.
import { randomInt } from 'node:crypto';
import { GatewayError } from '../errors.js';
import type { AccountScope } from './token-subscriptions.js';

export interface ListenKeyLimits {
  /** Keys one token may hold at once (1–100). */
  perToken: number;
  /** Keys the gateway holds at once, all tokens together. */
  total: number;
  /** How long a key lives after its creation or last renewal. */
  expiresAfterMs: number;
}

export interface HeldKey {
  readonly key: string;
  /** The token's name ('' when the gateway has no tokens file: every client is one owner). */
  readonly owner: string;
  /** The account it was made for (a margin key), fed from that account's subscription; none: the gateway's own subscription. */
  readonly scope?: AccountScope;
  expiresAt: number;
  timer: NodeJS.Timeout;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** The length of the exchange's listen keys (streams.yaml: ^[A-Za-z0-9]{60}$). */
const LENGTH = 60;

/** A new listen key: 60 letters and digits from the system's CSPRNG. */
export function listenKeyMint(): string {
  let out = '';
  for (let i = 0; i < LENGTH; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

export class ListenKeys {
  private readonly byKey = new Map<string, HeldKey>();
  /** Per owner, oldest first. */
  private readonly byOwner = new Map<string, HeldKey[]>();

  constructor(private limits: ListenKeyLimits, private readonly onExpired: (held: HeldKey) => void, private readonly clock: () => number = Date.now) {}

  get size(): number {
    return this.byKey.size;
  }

  /**
   * Whether `owner` may have a key of account `scope` now: at its bound, its newest key of that
   * account (to answer again); under it, undefined (a new one); refused (thrown) otherwise.
   */
  admit(owner: string, scope?: AccountScope): HeldKey | undefined {
    const mine = this.byOwner.get(owner) ?? [];
    if (mine.length >= this.limits.perToken) {
      const newest = [...mine].reverse().find((h) => h.scope?.id === scope?.id);
      if (!newest) throw new GatewayError('tooManyRequests', `Client token "${owner}" holds ${mine.length} listen keys, the most it may (GATEWAY_USER_DATA_KEYS_PER_TOKEN), none of them for this account: close one first.`);
      return newest;
    }
    if (this.byKey.size >= this.limits.total) {
      throw new GatewayError('overloaded', `The gateway holds its bound of ${this.limits.total} listen keys (GATEWAY_USER_DATA_KEYS); close unused ones or retry later.`, { 'retry-after': '60' });
    }
    return undefined;
  }

  /** A new key for `owner` (of account `scope`), or (at its bound) its newest one of that account renewed; refused at the gateway's total. */
  create(owner: string, scope?: AccountScope): HeldKey {
    const again = this.admit(owner, scope);
    if (again) {
      this.extend(again);
      return again;
    }
    const mine = this.byOwner.get(owner) ?? [];
    let key = listenKeyMint();
    while (this.byKey.has(key)) key = listenKeyMint();
    const held: HeldKey = { key, owner, ...(scope && { scope }), expiresAt: 0, timer: undefined as unknown as NodeJS.Timeout };
    this.byKey.set(key, held);
    mine.push(held);
    this.byOwner.set(owner, mine);
    this.extend(held);
    return held;
  }

  /** The key if `owner` holds it (another owner's key is as unknown as a made-up one). */
  get(owner: string, key: string): HeldKey | undefined {
    const held = this.byKey.get(key);
    return held && held.owner === owner ? held : undefined;
  }

  renew(owner: string, key: string): HeldKey | undefined {
    const held = this.get(owner, key);
    if (held) this.extend(held);
    return held;
  }

  close(owner: string, key: string): HeldKey | undefined {
    const held = this.get(owner, key);
    if (held) this.forget(held);
    return held;
  }

  /** The keys `owner` holds, oldest first (a copy). */
  ownedBy(owner: string): HeldKey[] {
    return [...(this.byOwner.get(owner) ?? [])];
  }

  /** New bounds (a reload): keys held stay until they end; a new lifetime applies from their next renewal. */
  relimit(limits: ListenKeyLimits): void {
    this.limits = limits;
  }

  /** Whether any key of the account is held. */
  holdsAccount(scopeId: string): boolean {
    for (const h of this.byKey.values()) if (h.scope?.id === scopeId) return true;
    return false;
  }

  /** Forget every key (the gateway is closing). */
  clear(): void {
    for (const held of [...this.byKey.values()]) this.forget(held);
  }

  private extend(held: HeldKey): void {
    clearTimeout(held.timer);
    held.expiresAt = this.clock() + this.limits.expiresAfterMs;
    held.timer = setTimeout(() => {
      this.forget(held);
      this.onExpired(held);
    }, this.limits.expiresAfterMs);
    held.timer.unref();
  }

  private forget(held: HeldKey): void {
    clearTimeout(held.timer);
    this.byKey.delete(held.key);
    const mine = this.byOwner.get(held.owner);
    if (!mine) return;
    const i = mine.indexOf(held);
    if (i >= 0) mine.splice(i, 1);
    if (!mine.length) this.byOwner.delete(held.owner);
  }
}
