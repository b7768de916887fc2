// What makes a user-data stream in a catalogue: a stream template that is one placeholder, the
// listen key (`<listenKey>`), and the API_KEY endpoints requiring that placeholder as a parameter:
// PUT keeps the key alive, DELETE closes it. The gateway (gateway/websocket/user-data.ts) keeps
// such a stream alive at its keepAlive.interval; the loader requires one wherever a PUT exists.
import { placeholderName } from './changes/bridges.js';
import type { Parameter, SecurityScheme, Service } from './model.js';

/** The listen-key parameter a user-data stream template names ("<listenKey>" → "listenKey"), else undefined. */
export function listenKeyOf(template: string): string | undefined {
  return placeholderName(template);
}

/** An endpoint with this security and these parameters takes the listen key `param` with the API key. */
export function takesListenKey(security: SecurityScheme, parameters: readonly Parameter[], param: string): boolean {
  return security === 'API_KEY' && parameters.some((p) => p.name === param && p.required);
}

const operations = new WeakMap<Service, ReadonlySet<string>>();

/**
 * The operations that reach the account's user data, read from the version changes: every operation a
 * bridge carries, every replacement a bridge calls (`via`), and the websocket-API methods of the same
 * family as those replacements (userDataStream.subscribe beside userDataStream.subscribe.signature),
 * and every endpoint and method the catalogue marks `userData: true` (the margin listen token, whose
 * subscription no bridge calls) or `subscription:` (it opens or ends a user-data subscription). Keys as the changes name them: "METHOD /path", "ws-api <method>", "stream <template>". A client token
 * needs the user-data right for them (client-auth/tokens.ts allowsUserData).
 */
export function userDataOperations(service: Service): ReadonlySet<string> {
  let out = operations.get(service);
  if (out) return out;
  const set = new Set<string>();
  const families = new Set<string>();
  for (const c of service.changes.changes) {
    for (const s of c.request) {
      if (s.kind !== 'bridge') continue;
      set.add(c.operation);
      set.add(s.via);
      if (s.via.startsWith('ws-api ')) families.add(s.via.slice('ws-api '.length).split('.')[0]);
    }
  }
  for (const m of service.wsMethods) if (m.userData || m.subscription || families.has(m.name.split('.')[0])) set.add(`ws-api ${m.name}`);
  for (const e of service.endpoints) if (e.userData) set.add(e.key);
  operations.set(service, (out = set));
  return out;
}
