// An operation's identity: its method and path shape, so renaming `{id}` to `{issue_id}` is the same
// operation (the loader's duplicate check, the diff, the cross-service check all key by it).
import { shapeOf } from './path-template.js';

/** "METHOD shape", e.g. "GET /repos/{}/{}"; a static path is its own shape. */
export function operationKey(e: { readonly method: string; readonly path: string }): string {
  return `${e.method} ${shapeOf(e.path)}`;
}

/** operationKey of an endpoint key ("METHOD /path"). */
export function operationKeyOf(key: string): string {
  const space = key.indexOf(' ');
  return key.includes('{') ? `${key.slice(0, space)} ${shapeOf(key.slice(space + 1))}` : key;
}
