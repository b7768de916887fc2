// GET /_gateway/plan?release=<id>&operation=<METHOD /path>: the composed plan the running program
// applies to that operation at that release, and what it decides with the keys this gateway holds.
// Catalogue facts and decisions only; never a key or a parameter value a client sent.
import type { GatewayState } from '../state.js';

export function planAnswer(state: GatewayState, query: Record<string, unknown>): { status: number; body: unknown } {
  const release = query.release === undefined ? undefined : String(query.release);
  const operation = query.operation === undefined ? '' : String(query.operation).trim();
  const served = release === undefined || release === '' ? state.default : state.byId.get(release);
  if (!served) return { status: 400, body: { error: `release '${release}' is not served; served: ${[...state.byId.keys()].join(', ')}` } };
  if (!/^[A-Z]+ \/\S*$/.test(operation)) return { status: 400, body: { error: `operation must be "METHOD /path" (e.g. operation=POST /sapi/v1/margin/loan); got '${operation.slice(0, 80)}'` } };
  const route = served.program.table.served.get(operation);
  if (!route) return { status: 404, body: { error: `${operation} is not served at ${served.id ?? 'the default release'}` } };
  const c = served.program.migrate?.planOf(route) ?? null;
  const at = route.view.release?.id ?? null;
  if (!c) return { status: 200, body: { release: at, operation, plan: null, decision: 'forwarded as it is: nothing changes for it up to the upstream\'s release' } };
  const decision = c.refusal !== null ? `refused 410: ${c.refusal}`
    : `migrated to ${c.plan.target} (${c.header})${c.plan.changesSignedBytes ? (c.signer ? '; a client-signed request is verified and signed again with the held key' : '; it is not signed by the client') : ''}`;
  return { status: 200, body: { release: at, operation, decision, keyHeld: c.signer !== undefined, plan: c.plan } };
}
