// AsyncAPI 3.0 description of the websocket side the gateway serves at the pinned release(s):
// every stream template as a channel whose <placeholders> are typed channel parameters, the
// SUBSCRIBE / UNSUBSCRIBE protocol on a stream connection, and every websocket-API method as a
// send operation with its parameters and a reply. Derived from the catalogue alone.
//
// The addresses are the catalogue's websocket paths (streams.yaml `paths`, ws-api.yaml `path`),
// which the gateway serves (src/gateway/websocket/routes.ts); the frame shapes are the gateway's
// (frames.ts), which mirror the upstream's. This layer may not import the gateway, so
// test/docs/asyncapi.test.ts checks that the gateway accepts what this document describes.
import { errorSchema } from './envelope.js';
import { currentAt } from './lifecycle.js';
import type { Parameter, Placeholder, Service, Stream, WsMethod } from './model.js';
import { REASONS } from './reasons.js';
import type { ReleaseView } from './resolve.js';

type Json = Record<string, unknown>;

/** The stream server's subscription frames, checked by the gateway before they are relayed. */
export const SUBSCRIPTION_METHODS = ['SUBSCRIBE', 'UNSUBSCRIBE'] as const;

export interface AsyncApiOptions {
  /** host[:port] clients connect to; default: the `host` server variable's default. */
  host?: string;
}

export function toAsyncApi(views: ReleaseView[], opts: AsyncApiOptions = {}): Json {
  const channels: Json = {};
  const operations: Json = {};
  const ws = views.filter((v) => v.streams.length || v.wsMethods.length);
  for (const view of ws) {
    // Channel and operation ids carry the service id only when several services have a websocket side.
    const prefix = ws.length > 1 ? `${view.service.id}-` : '';
    if (view.streams.length) addStreams(view, prefix, channels, operations);
    if (view.wsMethods.length) addWsApi(view, prefix, channels, operations);
  }
  return {
    asyncapi: '3.0.0',
    info: {
      title: `${views.map((v) => v.service.title).join(' + ')}: websocket streams and API`,
      version: views.map((v) => v.release?.id).filter(Boolean).join(', ') || 'current',
      description: [
        'Websocket side of the gateway at its pinned release(s), generated from the catalogue.',
        ...ws.filter((v) => v.streams.length && v.service.streamPaths).map(({ service: { streamPaths: p } }) => [
          `Streams: connect to \`${p!.raw}/<stream>[/<stream>…]\` for raw events, or \`${p!.combined}?streams=<a>/<b>\` for`,
          'events wrapped as {"stream", "data"}; on either connection, SUBSCRIBE / UNSUBSCRIBE frames add or drop streams.',
          'A stream name matches a template when every placeholder matches its type (channel parameters).',
        ].join('\n')),
        ...ws.filter((v) => v.wsMethods.length).map((v) => `Websocket API: connect to \`${v.service.wsApiPath}\` and send {"id", "method", "params"} requests.`),
        ...ws.map((v) => `${v.service.title}${v.release ? ` at ${v.release.id} (${v.release.date})` : ''}: ${v.streams.length} stream templates, ${v.wsMethods.length} websocket-API methods.`),
      ].join('\n'),
    },
    defaultContentType: 'application/json',
    servers: {
      gateway: {
        host: opts.host ?? '{host}',
        protocol: 'ws',
        description: 'this gateway (the same host and port as its HTTP side)',
        ...(opts.host ? {} : { variables: { host: { default: 'localhost:8080', description: 'host:port the gateway listens on' } } }),
      },
    },
    channels,
    operations,
  };
}

// ---- streams ------------------------------------------------------------------------------------

function addStreams(view: ReleaseView, prefix: string, channels: Json, operations: Json): void {
  const used = new Set<string>();
  for (const s of view.streams) {
    const id = unique(`${prefix}stream-${slug(s.name)}`, used);
    const params: Json = {};
    const address = s.name.replace(/<([^<>]+)>/g, (_, name: string) => {
      params[name] = placeholderParameter(view, name, view.service.placeholders[name]);
      return `{${name}}`;
    });
    channels[id] = {
      address: `${view.service.streamPaths!.raw}/${address}`,
      title: s.name,
      description: streamDescription(view, s),
      ...(Object.keys(params).length ? { parameters: params } : {}),
      messages: { event: { name: 'event', title: `${s.name} event`, payload: { type: 'object', description: 'event as the stream server sends it' } } },
    };
    operations[`receive-${id}`] = {
      action: 'receive',
      channel: { $ref: `#/channels/${id}` },
      summary: s.description ?? `events of ${s.name}`,
      messages: [{ $ref: `#/channels/${id}/messages/event` }],
    };
  }
  addSubscriptions(view, prefix, channels, operations);
}

function streamDescription(view: ReleaseView, s: Stream): string {
  const parts = [s.description ?? s.name];
  if (view.status(s) === 'deprecated') parts.push(`Deprecated${s.deprecated ? ` in ${s.deprecated}` : ''}${s.replacement ? `; use ${s.replacement}` : ''}.`);
  if (s.added) parts.push(`Added in ${s.added}.`);
  return parts.join(' ');
}

/** A placeholder as a channel parameter: an enum's values alive at the release, or its pattern. */
function placeholderParameter(view: ReleaseView, name: string, p: Placeholder | undefined): Json {
  if (!p) return { description: `placeholder <${name}>` };
  if (p.enum) {
    const values = view.enumValues(p.enum).map((v) => v.value);
    return { description: `${p.description ?? name} (enum ${p.enum})`, enum: values };
  }
  // AsyncAPI 3 parameters carry no schema: the pattern goes in the text and in an x- field.
  return { description: `${p.description ?? name}${p.pattern ? `; pattern ${p.pattern}` : ''}`, ...(p.pattern ? { 'x-pattern': p.pattern } : {}) };
}

function addSubscriptions(view: ReleaseView, prefix: string, channels: Json, operations: Json): void {
  const id = `${prefix}stream-subscriptions`;
  const codes = view.service.errors.codes;
  const paths = view.service.streamPaths!; // streams.yaml requires them
  const streamNames = { type: 'array', items: { type: 'string', description: 'a stream name matching one of the stream templates' } };
  const messages: Json = {};
  for (const method of SUBSCRIPTION_METHODS) {
    messages[method] = {
      name: method,
      title: `${method} request`,
      payload: {
        type: 'object',
        required: ['method', 'params', 'id'],
        properties: { method: { const: method }, params: streamNames, id: { type: ['integer', 'string'] } },
      },
    };
  }
  messages.result = {
    name: 'result',
    title: 'subscription answer',
    payload: { type: 'object', required: ['result', 'id'], properties: { result: { type: 'null' }, id: { type: ['integer', 'string'] } } },
  };
  messages.error = {
    name: 'error',
    title: 'refused subscription',
    description: `a SUBSCRIBE or UNSUBSCRIBE naming a stream that is not served at the release (${REASONS.streamInvalid.message}); never forwarded`,
    payload: {
      type: 'object',
      required: ['error', 'id'],
      properties: {
        error: { type: 'object', required: ['code', 'msg'], properties: { code: { type: 'integer', const: codes.streamInvalid ?? codes.unknown }, msg: { type: 'string' } } },
        id: { type: ['integer', 'string', 'null'] },
      },
    },
  };
  channels[id] = {
    address: paths.raw,
    title: 'stream subscriptions',
    description: `Frames on any stream connection (${paths.raw}/… or ${paths.combined}?streams=…): the gateway checks every name of a SUBSCRIBE or UNSUBSCRIBE against the stream templates alive at the release and refuses the frame otherwise.`,
    messages,
  };
  for (const method of SUBSCRIPTION_METHODS) {
    operations[`${prefix}${method.toLowerCase()}`] = {
      action: 'send',
      channel: { $ref: `#/channels/${id}` },
      summary: `${method === 'SUBSCRIBE' ? 'add' : 'drop'} streams on an open stream connection`,
      messages: [{ $ref: `#/channels/${id}/messages/${method}` }],
      reply: { channel: { $ref: `#/channels/${id}` }, messages: [{ $ref: `#/channels/${id}/messages/result` }, { $ref: `#/channels/${id}/messages/error` }] },
    };
  }
}

// ---- websocket API ------------------------------------------------------------------------------

function addWsApi(view: ReleaseView, prefix: string, channels: Json, operations: Json): void {
  const id = `${prefix}ws-api`;
  const messages: Json = {};
  const used = new Set<string>();
  const names = new Map<WsMethod, string>();
  for (const m of view.wsMethods) {
    const name = unique(slug(m.name), used);
    names.set(m, name);
    messages[name] = { name, title: `${m.name} request`, summary: m.summary, payload: requestPayload(view, m) };
  }
  const response = unique('response', used);
  messages[response] = {
    name: response,
    title: 'websocket-API answer',
    payload: {
      type: 'object',
      required: ['id', 'status'],
      properties: {
        id: { type: ['integer', 'string', 'null'] },
        status: { type: 'integer', description: 'HTTP-like status of the answer' },
        result: { description: "the method's result" },
        error: errorPayload(view.service),
        rateLimits: { type: 'array', items: { type: 'object' } },
      },
    },
  };
  channels[id] = {
    address: view.service.wsApiPath!,
    title: 'websocket API',
    description: 'Requests {"id", "method", "params"}; the gateway checks the method and its parameters at the release, answers refusals itself, and relays the rest.',
    messages,
  };
  for (const m of view.wsMethods) {
    const security = currentAt(m.security, view.at)?.scheme ?? 'NONE';
    const op: Json = {
      action: 'send',
      channel: { $ref: `#/channels/${id}` },
      title: m.name,
      summary: m.summary ?? m.name,
      description: `Security: ${security}${security === 'NONE' ? '' : ' (credentials travel in params)'}.`,
      messages: [{ $ref: `#/channels/${id}/messages/${names.get(m)}` }],
      reply: { channel: { $ref: `#/channels/${id}` }, messages: [{ $ref: `#/channels/${id}/messages/${response}` }] },
      'x-security': security,
    };
    if (view.status(m) === 'deprecated') Object.assign(op, { 'x-deprecated-in': m.deprecated, ...(m.replacement ? { 'x-successor': m.replacement } : {}) });
    operations[`${prefix}${names.get(m)}`] = op;
  }
}

function requestPayload(view: ReleaseView, m: WsMethod): Json {
  const params = m.parameters.filter((p) => view.status(p) === 'alive' || view.status(p) === 'deprecated');
  const payload: Json = {
    type: 'object',
    required: ['id', 'method'],
    properties: {
      id: { type: ['integer', 'string'] },
      method: { const: m.name },
      params: {
        type: 'object',
        properties: Object.fromEntries(params.map((p) => [p.name, paramSchema(view, p)])),
        ...(params.some((p) => p.required) ? { required: params.filter((p) => p.required).map((p) => p.name) } : {}),
      },
    },
  };
  if (params.some((p) => p.required)) (payload.required as string[]).push('params');
  return payload;
}

function paramSchema(view: ReleaseView, p: Parameter): Json {
  const schema: Json = { ...p.schema };
  if (p.description) schema.description = p.description;
  if (view.status(p) === 'deprecated') schema.deprecated = true;
  if (p.enum) {
    const values = view.enumValues(p.enum).map((v) => v.value);
    const t = schema.type;
    if (t === 'array' || (Array.isArray(t) && t.includes('array'))) schema.items = { ...(schema.items as Json | undefined), enum: values };
    else schema.enum = values;
  }
  return schema;
}

function errorPayload(service: Service): Json {
  // A websocket frame's error is the service's envelope, except the plain text of {error}.
  return service.errors.envelope === 'error' ? { type: 'string' } : errorSchema(service);
}

/** A key made of letters, digits, '-' and '_' (what AsyncAPI ids allow everywhere). */
function slug(s: string): string {
  return s.replace(/[<>]/g, '').replace(/[^A-Za-z0-9_]+/g, '-').replace(/^-+|-+$/g, '') || 'item';
}

function unique(id: string, used: Set<string>): string {
  let out = id;
  for (let n = 2; used.has(out); n++) out = `${id}-${n}`;
  used.add(out);
  return out;
}
