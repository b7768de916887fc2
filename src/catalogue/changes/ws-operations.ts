// Websocket items under the version-change vocabulary. A websocket-API method is the operation
// "ws-api <method>" (its params are parameters, as over REST); a stream template is the operation
// "stream <template>", whose enum placeholders are its parameters. Both are seen by the composer and
// the checker as endpoints, so one set of rules (events, coverage, plans) serves all three kinds.
import type { Endpoint, Parameter, Service } from '../model.js';

export type OperationKind = 'rest' | 'ws-api' | 'stream';

export const WS_API = 'ws-api ';
export const STREAM = 'stream ';

export function operationKind(key: string): OperationKind {
  return key.startsWith(WS_API) ? 'ws-api' : key.startsWith(STREAM) ? 'stream' : 'rest';
}

/** The method a websocket-API operation names ("ws-api userDataStream.subscribe" → "userDataStream.subscribe"). */
export function wsApiMethod(key: string): string {
  return key.startsWith(WS_API) ? key.slice(WS_API.length) : key;
}

const made = new WeakMap<Service, Endpoint[]>();

/** The websocket-API methods and stream templates of a service, as endpoints keyed "ws-api …" / "stream …". */
export function wsOperations(service: Service): Endpoint[] {
  let out = made.get(service);
  if (out) return out;
  out = [];
  for (const m of service.wsMethods) {
    out.push({
      ...m, service: service.id, module: 'ws-api', method: 'WS-API', path: m.name, key: `${WS_API}${m.name}`,
    });
  }
  for (const s of service.streams) {
    const parameters: Parameter[] = [];
    for (const [, name] of s.name.matchAll(/<([^>]+)>/g)) {
      const ph = service.placeholders[name];
      // A placeholder lives as long as its template; its enum values have their own lives.
      parameters.push({ name, in: 'query', required: true, schema: {}, enum: ph?.enum, span: s.span, at: s.at });
    }
    out.push({
      ...s, service: service.id, module: 'streams', method: 'STREAM', path: s.name, key: `${STREAM}${s.name}`,
      security: [], parameters, constraints: [],
    });
  }
  made.set(service, out);
  return out;
}

/** Every operation the changes of a service may name: REST endpoints, websocket-API methods, streams. */
export function allOperations(service: Service): Endpoint[] {
  return [...service.endpoints, ...wsOperations(service)];
}
