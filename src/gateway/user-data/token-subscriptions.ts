// [user data] The accounts of a bridge that subscribes with tokens (marginListenKeys, changes.yaml):
// one upstream subscription per account (its scope: cross margin, or isolated margin of one symbol),
// made with a listen token the gateway obtains with its key (listen-token.ts) and renewed with a new
// token before it expires (upstream-subscription.ts). An account is known once a create for it got a
// token (the exchange confirmed the account exists) and forgotten when its last listen key ends, so
// the subscriptions held are bounded by the accounts the gateway's key really has. Accounts new to
// the gateway are tried at a bounded rate (a burst of BURST, then one a second): creates naming
// made-up accounts cost the exchange little.
import { bridgeStepsUpTo, fillTemplate, placeholderName } from '../../catalogue/changes/bridges.js';
import type { Scalar, TokenSource } from '../../catalogue/changes/types.js';
import { wsApiMethod } from '../../catalogue/changes/ws-operations.js';
import type { Service } from '../../catalogue/model.js';
import type { Secret } from '../../upstream/signing/secret.js';
import { GatewayError } from '../errors.js';
import { obtainToken, TokenRefused, type TokenEndpoint, type TokenGrant } from './listen-token.js';
import { UpstreamSubscription, type SubscriptionOptions } from './upstream-subscription.js';

/** An account: the params its tokens are asked with, and a stable id made of them. */
export interface AccountScope {
  readonly id: string;
  readonly params: Readonly<Record<string, string>>;
}

/** The scope template of a bridge step (changes.yaml `scope`), "<name>" filled from a request's params. */
export type ScopeTemplate = Readonly<Record<string, Scalar>>;

/** The account a request names, and the parameters its template wanted that the request did not send. */
export function scopeOf(template: ScopeTemplate | undefined, params: Readonly<Record<string, unknown>>): { scope: AccountScope; missing: string[] } {
  const filled = fillTemplate(template ?? {}, params) as Record<string, unknown>;
  const wanted = Object.values(template ?? {}).map(placeholderName).filter((n): n is string => n !== undefined);
  const missing = wanted.filter((n) => params[n] === undefined || params[n] === '');
  const out: Record<string, string> = {};
  for (const k of Object.keys(filled).sort()) out[k] = String(filled[k]);
  return { scope: { id: JSON.stringify(out), params: out }, missing };
}

/**
 * Whether a listen key of account `held` (undefined: the key's own subscription, no account) answers
 * to a call naming `template` filled from `params`: the same kind of account, and the same values
 * where the call sent them (a renewal that leaves out the symbol still finds its isolated key).
 */
export function sameAccount(held: AccountScope | undefined, template: ScopeTemplate | undefined, params: Readonly<Record<string, unknown>>): boolean {
  if (!held || !template) return !held && !template;
  const keys = Object.keys(template);
  if (keys.length !== Object.keys(held.params).length) return false;
  return keys.every((k) => {
    const name = placeholderName(template[k]);
    const want = name === undefined ? String(template[k]) : params[name];
    return Object.hasOwn(held.params, k) && (want === undefined || want === '' || held.params[k] === String(want));
  });
}

/** Accounts new to the gateway tried at once at most, and then one a second. */
const BURST = 5;

interface Account {
  scope: AccountScope;
  grant?: TokenGrant;
  pending?: Promise<TokenGrant>;
  sub: UpstreamSubscription;
}

export interface TokenSubscriptionOptions {
  endpoint: TokenEndpoint;
  /** The params of the subscribe method carrying the token (changes.yaml token.params: "<token>"). */
  params: Readonly<Record<string, unknown>>;
  /** Everything of one account's subscription but its params. */
  subscription: Omit<SubscriptionOptions, 'subscribeParams'>;
  clock?: () => number;
}

export class TokenSubscriptions {
  private readonly accounts = new Map<string, Account>();
  /** Tokens being obtained for accounts not known yet (one request per account at a time). */
  private readonly trying = new Map<string, Promise<TokenGrant>>();
  private allowance = BURST;
  private refilled: number;

  constructor(private readonly o: TokenSubscriptionOptions) {
    this.refilled = this.now();
  }

  /** Upstream subscriptions held now, and upstream calls made (the token requests are not counted: REST). */
  get active(): number {
    let n = 0;
    for (const a of this.accounts.values()) n += a.sub.active;
    return n;
  }

  get calls(): number {
    let n = 0;
    for (const a of this.accounts.values()) n += a.sub.calls;
    return n;
  }

  /**
   * Make sure the account is known: a token obtained for it unless the gateway holds one. Answers the
   * upstream's refusal of the account (its status and body: an account that does not exist); throws a
   * GatewayError when no token came, or 429 when too many new accounts were tried just now.
   */
  async ensure(scope: AccountScope): Promise<{ status: number; body: unknown } | undefined> {
    if (this.accounts.has(scope.id)) return undefined;
    let trying = this.trying.get(scope.id);
    if (!trying) {
      if (!this.take()) throw new GatewayError('tooManyRequests', 'Too many margin accounts new to the gateway were asked for just now; retry in a second.', { 'retry-after': '1' });
      trying = obtainToken(this.o.endpoint, scope.params);
      this.trying.set(scope.id, trying);
      const done = () => this.trying.delete(scope.id);
      trying.then(done, done);
    }
    let grant: TokenGrant;
    try {
      grant = await trying;
    } catch (e) {
      if (e instanceof TokenRefused) return { status: e.status, body: e.body };
      throw e;
    }
    if (!this.accounts.has(scope.id)) this.accounts.set(scope.id, this.account(scope, grant));
    return undefined;
  }

  /** Whether the account is known (a token was obtained for it and it has keys). */
  known(scopeId: string): boolean {
    return this.accounts.has(scopeId);
  }

  /** The subscription of a known account. */
  subscription(scopeId: string): UpstreamSubscription {
    return this.accounts.get(scopeId)!.sub;
  }

  /** No listen key of the account is left: its subscription and token go. */
  forget(scopeId: string): void {
    this.accounts.get(scopeId)?.sub.close();
    this.accounts.delete(scopeId);
  }

  close(): void {
    for (const a of this.accounts.values()) a.sub.close();
    this.accounts.clear();
  }

  private account(scope: AccountScope, grant: TokenGrant): Account {
    const a: Account = { scope, grant, sub: undefined as unknown as UpstreamSubscription };
    a.sub = new UpstreamSubscription({
      ...this.o.subscription,
      subscribeParams: async (renew) => {
        const g = await this.grantOf(a, renew);
        return { params: fillTemplate(this.o.params, { token: g.token }) as Record<string, unknown>, expiresAt: g.expiresAt };
      },
    });
    return a;
  }

  /** The account's token: the one held unless a renewal asks or it is about to expire, else a new one (one request at a time). */
  private grantOf(a: Account, renew: boolean): Promise<TokenGrant> {
    const g = a.grant;
    if (!renew && g && g.expiresAt - this.now() > 1000) return Promise.resolve(g);
    if (!a.pending) {
      a.pending = obtainToken(this.o.endpoint, a.scope.params);
      a.pending.then((next) => { a.grant = next; a.pending = undefined; }, () => { a.pending = undefined; });
    }
    return a.pending;
  }

  private take(): boolean {
    const now = this.now();
    this.allowance = Math.min(BURST, this.allowance + (now - this.refilled) / 1000);
    this.refilled = now;
    if (this.allowance < 1) return false;
    this.allowance -= 1;
    return true;
  }

  private now(): number {
    return (this.o.clock ?? Date.now)();
  }
}

/** A token-subscribing bridge's parts at the upstream's release: its subscribe and unsubscribe methods, and the token it subscribes with. */
export interface TokenParts {
  create: string;
  close: string;
  token: TokenSource;
}

/** The parts of `bridge` in the service's changes up to release position `u`, or undefined when it declares no create with a token and no close. */
export function tokenParts(service: Service, u: number, bridge: string): TokenParts | undefined {
  const { create, close } = bridgeStepsUpTo(service, u, bridge);
  const token = create?.step.token;
  return token && close ? { create: wsApiMethod(create.step.via), close: wsApiMethod(close.step.via), token } : undefined;
}

/** Where and with what the gateway obtains tokens: the REST base, the service's API-key header and the gateway's key. */
export interface TokenAccess {
  restBase?: string;
  apiKeyHeader?: string;
  apiKey: Secret;
  extraParams?: Readonly<Record<string, string>>;
}

/** The accounts of a token-subscribing bridge, or undefined when tokens cannot be obtained (no REST upstream or API-key header). */
export function tokenSubscriptions(parts: TokenParts, access: TokenAccess, subscription: Omit<SubscriptionOptions, 'subscribeParams' | 'subscribe' | 'unsubscribe'>): TokenSubscriptions | undefined {
  const { restBase, apiKeyHeader } = access;
  if (!restBase || !apiKeyHeader) return undefined;
  const [method, path] = parts.token.from.split(' ');
  return new TokenSubscriptions({
    endpoint: { url: `${restBase.replace(/\/+$/, '')}${path}`, method, apiKeyHeader, apiKey: access.apiKey, source: parts.token, timeoutMs: subscription.timeoutMs, extraParams: access.extraParams },
    params: parts.token.params,
    subscription: { ...subscription, subscribe: parts.create, unsubscribe: parts.close },
  });
}
