// GET /_gateway/plan?release=<id>&operation=<METHOD /path>: the composed plan the running program
// applies to that operation at that release, and what it decides with the keys this gateway holds.
// Catalogue facts and decisions only; never a key or a parameter value a client sent.
import { composePlan } from '../../catalogue/changes/compose.js';
import { endpointAt, upstreamIndex } from '../../catalogue/changes/lookup.js';
import { type PlanBridge } from '../../catalogue/changes/plan.js';
import { operationKind } from '../../catalogue/changes/ws-operations.js';
import type { GatewayState, Served } from '../program/state.js';
import { appliedChanges, tokenRights, useInstead } from '../migrate/decide.js';

export function planAnswer(state: GatewayState, query: Record<string, unknown>): { status: number; body: unknown } {
  const release = query.release === undefined ? undefined : String(query.release);
  const operation = query.operation === undefined ? '' : String(query.operation).trim();
  const served = release === undefined || release === '' ? state.default : state.byId.get(release);
  if (!served) return { status: 400, body: { error: `release '${release}' is not served; served: ${[...state.byId.keys()].join(', ')}` } };
  if (operationKind(operation) !== 'rest') return websocketPlanAnswer(served, operation);
  if (!/^[A-Z]+ \/\S*$/.test(operation)) return { status: 400, body: { error: `operation must be "METHOD /path", "ws-api <method>" or "stream <template>" (e.g. operation=POST /sapi/v1/margin/loan); got '${operation.slice(0, 80)}'` } };
  const route = served.program.table.byKey(operation);
  if (!route) return { status: 404, body: { error: `${operation} is not served at ${served.id ?? 'the default release'}` } };
  const c = served.program.migrate?.planOf(route) ?? null;
  const at = route.view.release?.id ?? null;
  if (!c) return { status: 200, body: { release: at, operation, plan: null, decision: 'forwarded as it is: nothing changes for it up to the upstream\'s release' } };
  const decision = c.refusal !== null ? `refused 410: ${c.refusal}`
    : c.plan.bridge ? bridged(c.plan.bridge)
    : `migrated to ${c.plan.target} (${c.header})${c.plan.changesSignedBytes ? (c.signer ? '; a client-signed request is verified and signed again with the held key' : '; it is not signed by the client') : ''}`;
  return { status: 200, body: { release: at, operation, decision, tokenRights: tokenRights(c.plan), keyHeld: c.signer !== undefined, plan: c.plan } };
}

/** The same for a websocket-API method ("ws-api <method>") or a stream template ("stream <template>"), as the relay applies it. */
function websocketPlanAnswer(served: Served, operation: string): { status: number; body: unknown } {
  const view = served.views.find((v) => v.service.versioned && endpointAt(v.service, operation, v.at));
  if (!view) return { status: 404, body: { error: `${operation} is not served at ${served.id ?? 'the default release'}` } };
  const upstream = served.program.migrate?.upstreamRelease.get(view.service.id);
  const plan = upstream === undefined ? null : composePlan(view.service, operation, view.at, upstreamIndex(view.service, upstream));
  const at = view.release?.id ?? null;
  if (!plan) return { status: 200, body: { release: at, operation, plan: null, decision: 'relayed as it is: nothing changes for it up to the upstream\'s release' } };
  const decision = plan.refuse ? `refused 410: removed in ${plan.refuse.release}: ${plan.refuse.reason}${useInstead(plan.refuse.replacement)}`
    : plan.bridge ? `${bridged(plan.bridge)} (signing mode; without a key refused 410${useInstead(plan.bridge.replacement)})`
    : `migrated to ${plan.path} (${appliedChanges(plan)})${plan.needsKey ? '; a frame the client signed is carried only in signing mode (the gateway verifies it and signs again), else answered 410' : ''}`;
  return { status: 200, body: { release: at, operation, decision, tokenRights: tokenRights(plan), plan } };
}

/** A bridged operation's decision: the gateway answers it itself and holds the replacement upstream. */
const bridged = (b: PlanBridge): string => `answered by the gateway itself (${b.release} ${b.change}: bridge ${b.name}, ${b.action}), holding ${b.via} upstream with its key; nothing of the request is forwarded`;
