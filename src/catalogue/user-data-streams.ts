// What makes a user-data stream in a catalogue: a stream template that is one placeholder, the
// listen key (`<listenKey>`), and the API_KEY endpoints requiring that placeholder as a parameter:
// PUT keeps the key alive, DELETE closes it. The gateway (gateway/websocket/user-data.ts) keeps
// such a stream alive at its keepAlive.interval; the loader requires one wherever a PUT exists.
import type { Parameter, SecurityScheme } from './model.js';

/** The listen-key parameter a user-data stream template names ("<listenKey>" → "listenKey"), else undefined. */
export function listenKeyOf(template: string): string | undefined {
  return /^<(\w+)>$/.exec(template)?.[1];
}

/** An endpoint with this security and these parameters takes the listen key `param` with the API key. */
export function takesListenKey(security: SecurityScheme, parameters: readonly Parameter[], param: string): boolean {
  return security === 'API_KEY' && parameters.some((p) => p.name === param && p.required);
}
