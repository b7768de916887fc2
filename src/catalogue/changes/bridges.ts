// Named bridges: what a version change needs when the old operation has no request the upstream still
// takes, so the gateway answers it itself and holds the replacement upstream with its own key (signing
// mode). Referenced from changes.yaml as `bridge: { name, action, via }`, as transforms are by name:
// the catalogue says which old operation plays which part and which replacement the gateway calls
// (`via`); the code of the part lives in the gateway (gateway/user-data/). Without a key the old
// operation answers 410 naming its replacement.

import type { Service } from '../model.js';
import type { BridgeStep, Change } from './types.js';

export interface Bridge {
  summary: string;
  /** The parts an old operation may play, each with what the gateway does for it. */
  actions: Record<string, string>;
  /** Actions that feed a stream: their change must declare the event shapes (`events`). */
  feeds: readonly string[];
  /** Actions whose step must declare the token its subscription is made with (`token`) and may name an account (`scope`). */
  tokens?: readonly string[];
}

export const BRIDGES: Record<string, Bridge> = {
  /**
   * Listen keys (the user-data mechanism retired on 2026-02-20): the gateway mints opaque listen keys
   * bound to the client's token, answers their renewal and closing itself, and feeds their streams
   * from one user-data subscription it holds on the websocket API with its key.
   */
  listenKeys: {
    summary: 'listen keys minted by the gateway, bound to the client token; their streams fed from a user-data subscription the gateway holds upstream',
    actions: {
      create: 'mints a listen key bound to the client token (or answers one it holds again), valid for the stream\'s keepAlive.expiresAfter',
      renew: 'extends the token\'s listen key by keepAlive.expiresAfter; answers {}',
      close: 'ends the token\'s listen key, and the upstream subscription once no listen key stream needs it; answers {}',
      feed: 'feeds the listen key\'s stream from the upstream subscription, each event unwrapped to the old shape; an expired key gets the old expiry event',
    },
    feeds: ['feed'],
  },
  /**
   * Margin listen keys (retired on 2026-02-20 like the spot ones): keys minted as above, each bound
   * to the client token and to the account its create call named (its `scope`: cross, or isolated
   * with a symbol); a key's stream is fed (the listenKeys feed) from the subscription the gateway
   * holds for that account, made with a token from the step's `token` operation and renewed with a
   * new token before it expires.
   */
  marginListenKeys: {
    summary: 'margin listen keys minted by the gateway, bound to the client token and to the account the create named; their streams fed from a token-authorised subscription per account that the gateway holds upstream and renews',
    actions: {
      create: 'obtains a token for the account (its scope) unless one is held, then mints a listen key bound to the client token and the account, valid for the stream\'s keepAlive.expiresAfter',
      renew: 'extends the token\'s listen key of that account by keepAlive.expiresAfter; answers {}',
      close: 'ends the token\'s listen key of that account, and the account\'s upstream subscription once no listen-key stream needs it; answers {}',
    },
    feeds: [],
    tokens: ['create'],
  },
};

export function bridgeNamed(name: string): Bridge | undefined {
  return Object.hasOwn(BRIDGES, name) ? BRIDGES[name] : undefined;
}

/** Where the placeholder "<name>" sits in a JSON template of `events`: the keys leading to it ([] = the template itself), or undefined. */
export function placeholderPath(template: unknown, name: string): string[] | undefined {
  if (template === `<${name}>`) return [];
  if (!template || typeof template !== 'object' || Array.isArray(template)) return undefined;
  for (const [k, v] of Object.entries(template)) {
    const p = placeholderPath(v, name);
    if (p) return [k, ...p];
  }
  return undefined;
}

/** The field naming the upstream subscription in a bridge's upstream event shape: the key holding "<subscriptionId>", if any. */
export function subscriptionIdField(upstream: unknown): string | undefined {
  return placeholderPath(upstream, 'subscriptionId')?.at(-1);
}

/** The name of a template value that is one placeholder ("<symbol>" → "symbol"), else undefined. */
export function placeholderName(value: unknown): string | undefined {
  return typeof value === 'string' ? /^<(\w+)>$/.exec(value)?.[1] : undefined;
}

/** A JSON template with its placeholders "<name>" replaced by `values` (a placeholder with no value stays as written). */
export function fillTemplate(template: unknown, values: Readonly<Record<string, unknown>>): unknown {
  if (typeof template === 'string') {
    const name = placeholderName(template);
    return name !== undefined && Object.hasOwn(values, name) ? values[name] : template;
  }
  if (Array.isArray(template)) return template.map((v) => fillTemplate(v, values));
  if (template && typeof template === 'object') return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, fillTemplate(v, values)]));
  return template;
}

/**
 * The steps of bridge `name` the service's changes declare up to release position `upTo` (the
 * upstream's release), the first of each action, each with its change: what the gateway runs for it.
 */
export function bridgeStepsUpTo(service: Service, upTo: number, name: string): Partial<Record<string, { step: BridgeStep; change: Change }>> {
  const found: Partial<Record<string, { step: BridgeStep; change: Change }>> = {};
  for (const change of service.changes.changes) {
    if (change.index > upTo) continue;
    for (const step of change.request) if (step.kind === 'bridge' && step.name === name) found[step.action] ??= { step, change };
  }
  return found;
}
