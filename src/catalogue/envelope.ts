// The envelope of a service's error answers (service.yaml errors.envelope): the one place that knows
// each shape, for the gateway's own refusals and for the OpenAPI and AsyncAPI documents that describe them.
import type { Service } from './model.js';
import { REASONS, type Reason } from './reasons.js';

type Json = Record<string, unknown>;

/** Body of an error answer in the envelope the service's clients already parse. */
export function errorBody(service: Service | undefined, reason: Reason, message: string, status: number = REASONS[reason].status): Json {
  const errors = service?.errors;
  if (errors?.envelope === 'code-msg') {
    // The loader checked every key against the reason table; a reason the service does not map
    // answers with its 'unknown' code, as the upstream does for errors it has no code for.
    return { code: errors.codes[reason] ?? errors.codes.unknown, msg: message };
  }
  if (errors?.envelope === 'message') {
    // GitHub's shape, its status as text as GitHub sends it; octokit's RequestError reads message.
    return errors.documentationUrl ? { message, documentation_url: errors.documentationUrl, status: String(status) } : { message, status: String(status) };
  }
  return { error: message };
}

/** JSON Schema of that body. */
export function errorSchema(service: Service): Json {
  switch (service.errors.envelope) {
    case 'code-msg':
      return {
        type: 'object', required: ['code', 'msg'],
        properties: { code: { type: 'integer', description: 'error code (service.yaml errors.codes for the gateway\'s own refusals)' }, msg: { type: 'string' } },
      };
    case 'message':
      return {
        type: 'object', required: ['message'],
        properties: { message: { type: 'string' }, documentation_url: { type: 'string' }, status: { type: 'string', description: 'the HTTP status, as text' } },
      };
    default:
      return { type: 'object', required: ['error'], properties: { error: { type: 'string' } } };
  }
}
