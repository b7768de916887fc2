// Early answers that save upstream weight: an endpoint needing an API key (at the pinned
// release) is refused here when the key header is missing.
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../errors.js';
import type { Route } from '../routes/route-table.js';

export function checkApiKey(route: Route, headers: IncomingHttpHeaders, supplied: ReadonlySet<string>): void {
  const { security } = route.endpoint;
  const header = route.view.service.apiKeyHeader;
  if (security === 'NONE' || !header || supplied.has(header)) return;
  if (headers[header.toLowerCase()]) return;
  const release = route.view.release ? ` at ${route.view.release.id}` : '';
  throw new GatewayError('unauthorized', `API-key required: ${route.endpoint.endpoint.key} is ${security}${release}; send it in the ${header} header.`);
}
