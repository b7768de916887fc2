// What a composed plan decides given whether the gateway holds the account's key, whatever carries
// the request (a REST request, a websocket-API frame): the X-Gateway-Migrated text, the 410
// refusals (removed; must be signed and no key; signed bytes changed and no key), the value
// guards and the answer steps. Decided once per plan, never per request.
import type { Plan } from '../../catalogue/changes/plan.js';
import type { AnswerStep } from '../../catalogue/changes/types.js';
import { GatewayError } from '../errors.js';

export interface PlanDecisions {
  /** X-Gateway-Migrated: "<release> <change id>[, …]". */
  header: string;
  /** Why every request is refused (410), decided here: removed, or the upstream wants it signed and no key is held. */
  refusal: string | null;
  /** Why a request whose signed bytes the plan does change is refused (410): no key is held to sign it again. */
  refuseChanged: string | null;
  /** values null: refused whatever the value. */
  guards: { parameter: string; values: ReadonlySet<string> | null; message: string }[];
  /** Answer steps, or null when the answer comes back as it is (`lost` steps only declare: they do nothing to it). */
  answer: readonly AnswerStep[] | null;
}

/** How messages name the request: the operation and its target as a client knows them, and what its signature covers. */
export interface PlanWords {
  operation: string;
  target: string;
  signed: string;
}

/** The changes a plan applies, as X-Gateway-Migrated and the plan explanations name them: "<release> <change id>[, …]". */
export const appliedChanges = (plan: Plan): string => plan.applied.map((a) => `${a.release} ${a.id}`).join(', ');

/** "; use <replacement>" after a refusal's reason, or nothing. */
export const useInstead = (replacement?: string): string => (replacement ? `; use ${replacement}` : '');

/** Which operation a client token's allow-list is checked against for a request the plan carries (tokens file). */
export function tokenRights(plan: Plan): string {
  if (plan.refuse) return `none: every request of ${plan.operation} at ${plan.release} is refused 410 before anything is sent`;
  if (plan.target === plan.operation) return `${plan.operation}: the operation the client names is the one sent`;
  return `both ${plan.operation} (the operation the client names) and ${plan.target} (the operation the gateway sends): a token allowed only the first is refused 403, nothing is sent`;
}

export function decide(plan: Plan, holdsKey: boolean, words: PlanWords): PlanDecisions {
  const header = appliedChanges(plan);
  let refusal: string | null = null;
  let refuseChanged: string | null = null;
  const becomes = `${words.operation} at ${plan.release} becomes ${words.target} at ${plan.upstreamRelease} (${header})`;
  if (plan.bridge) {
    // The gateway answers it itself and holds the replacement upstream with its key: only in signing mode.
    if (!holdsKey) refusal = `${words.operation} was removed in ${plan.bridge.release} (the upstream speaks ${plan.upstreamRelease}); the gateway bridges it (${plan.bridge.name} ${plan.bridge.action}) only in signing mode, holding ${plan.bridge.via} with its own key, and it holds none, so nothing is forwarded${useInstead(plan.bridge.replacement)}`;
  } else if (plan.refuse) {
    refusal = `${words.operation} was removed in ${plan.refuse.release} and cannot be carried to the upstream (which speaks ${plan.upstreamRelease}): ${plan.refuse.reason}${useInstead(plan.refuse.replacement)}`;
  } else if (!holdsKey && plan.security.to === 'SIGNED' && plan.security.from !== 'SIGNED') {
    refusal = `${becomes}, which must be signed; the gateway holds no key to sign it (signing mode), so it is not forwarded${useInstead(words.target)}`;
  } else if (!holdsKey && plan.needsKey) {
    refuseChanged = `${becomes}, which changes the ${words.signed}; the gateway holds no key to sign it again (signing mode), so it is not forwarded${useInstead(words.target)}`;
  }
  return {
    header, refusal, refuseChanged,
    guards: plan.guards.map((g) => ({
      parameter: g.parameter, values: g.values === null ? null : new Set(g.values),
      message: `the upstream (which speaks ${plan.upstreamRelease}) no longer takes this value since ${g.release}: ${g.reason}${useInstead(g.replacement)}`,
    })),
    answer: plan.answer.some((s) => s.kind !== 'lost') ? plan.answer : null,
  };
}

/** The refusal of a request sending a guarded parameter value (or a guarded parameter at all), else undefined. */
export function guardRefusal(guards: PlanDecisions['guards'], params: Readonly<Record<string, unknown>>, label: string): GatewayError | undefined {
  for (const g of guards) {
    const v = params[g.parameter];
    if (v !== undefined && (g.values === null || g.values.has(String(v)))) return new GatewayError('gone', `${label}: ${g.parameter}=${String(v)}: ${g.message}`);
  }
  return undefined;
}
