// The migrations of one program: per route, the compiled plan from its release up to the release
// its service's upstream speaks, made on the route's first request and kept on the route (a route
// with no change costs one property read). The checks run when the program is compiled, at
// start-up and on reload: a catalogue whose changes lint would refuse is never served.
import { checkChanges } from '../../catalogue/changes/check.js';
import { composePlan } from '../../catalogue/changes/compose.js';
import { upstreamIndex } from '../../catalogue/changes/lookup.js';
import { type JsonStep, type Plan } from '../../catalogue/changes/plan.js';
import { formatProblem } from '../../catalogue/problems.js';
import { resolveServiceAt, type ReleaseView } from '../../catalogue/resolve.js';
import type { Service } from '../../catalogue/model.js';
import type { Signer } from '../../upstream/signing/signers.js';
import { UsageError } from '../../usage-error.js';
import { routeOf, type Route } from '../routes/route-table.js';
import type { RequestState } from '../request-state.js';
import { migrateAnswer } from './answer.js';
import { decide, type PlanDecisions } from './decide.js';

export interface CompiledPlan extends PlanDecisions {
  plan: Plan;
  /** The operation at the upstream's release: what hooks (signing, weights) and the second validation see. */
  target: Route;
  signer: Signer | undefined;
  /** The plan's JSON steps on a request's JSON body, in order (null: none). */
  json: readonly JsonStep[] | null;
  /** The answer carried back down the plan's answer steps (null: it comes back as it is), made once per plan. */
  rewrite: NonNullable<RequestState['answer']> | null;
}

export interface Migrations {
  /** The compiled plan of a route, or null when nothing changes for it. */
  planOf(route: Route): CompiledPlan | null;
  /** Upstream release per versioned service. */
  upstreamRelease: Map<string, string>;
}

export interface MigrationOptions {
  /** Release the upstream speaks, per service id (the setting); else service.yaml, else the newest. */
  upstreamRelease?: Record<string, string>;
  /** Keys the gateway holds (signing mode), per service id. */
  signers?: ReadonlyMap<string, Signer>;
}

const PLAN = Symbol('version-change plan');
type PlannedRoute = Route & { [PLAN]?: CompiledPlan | null };

/** null when no served service has changes: the pipeline then skips the stage entirely. */
export function compileMigrations(views: readonly ReleaseView[], o: MigrationOptions = {}): Migrations | null {
  const services = new Map<string, Service>();
  for (const v of views) if (v.service.versioned) services.set(v.service.id, v.service);
  for (const id of Object.keys(o.upstreamRelease ?? {})) {
    const s = services.get(id);
    if (!s) throw new UsageError(`--upstream-release names service "${id}", which is not a served versioned service (${[...services.keys()].join(', ') || 'none'})`);
    if (!s.releases.some((r) => r.id === o.upstreamRelease![id])) throw new UsageError(`--upstream-release ${id}=${o.upstreamRelease![id]}: unknown release; valid: ${s.releases.map((r) => r.id).join(', ')}`);
  }
  const upstream = new Map<string, number>();
  for (const s of services.values()) {
    if (!s.changes.changes.length && !s.changes.unbridgeable.length) continue;
    const { problems } = checked(s, o.upstreamRelease?.[s.id]);
    if (problems.length) throw new Error(`version changes of service ${s.id} do not check out:\n${problems.slice(0, 20).map(formatProblem).join('\n')}${problems.length > 20 ? `\n… ${problems.length - 20} more (npm run catalogue -- lint)` : ''}`);
    upstream.set(s.id, upstreamIndex(s, o.upstreamRelease?.[s.id]));
  }
  if (!upstream.size) return null;
  const targetViews = new Map<string, ReleaseView>();
  const targets = new Map<string, Route>();
  const targetRoute = (s: Service, u: number, key: string): Route => {
    const k = `${s.id} ${key}`;
    let r = targets.get(k);
    if (r) return r;
    let view = targetViews.get(s.id);
    if (!view) targetViews.set(s.id, (view = resolveServiceAt(s, u)));
    const endpoint = view.endpoints.find((e) => e.endpoint.key === key && (e.status === 'alive' || e.status === 'deprecated'))!;
    r = routeOf(view, endpoint, null);
    targets.set(k, r);
    return r;
  };
  const compile = (route: PlannedRoute): CompiledPlan | null => {
    const s = route.view.service;
    const u = upstream.get(s.id);
    const plan = u === undefined ? null : composePlan(s, route.endpoint.endpoint.key, route.view.at, u);
    const c = plan ? compilePlan(plan, (key) => targetRoute(s, u!, key), o.signers?.get(s.id)) : null;
    route[PLAN] = c;
    return c;
  };
  return {
    planOf: (route: PlannedRoute) => { const c = route[PLAN]; return c !== undefined ? c : compile(route); },
    upstreamRelease: new Map([...upstream].map(([id, u]) => [id, services.get(id)!.releases[u].id])),
  };
}

/** checkChanges per catalogue and setting: programs of one catalogue (one per served release) share it. */
const reports = new WeakMap<object, Map<string, ReturnType<typeof checkChanges>>>();
function checked(s: Service, setting: string | undefined): Pick<ReturnType<typeof checkChanges>, 'problems'> {
  // The loader checked the changes against the default upstream release when it built the catalogue.
  if (s.changes.checkedAgainst !== undefined && (setting === undefined || setting === s.changes.checkedAgainst)) return { problems: [] };
  let bySetting = reports.get(s.changes);
  if (!bySetting) reports.set(s.changes, (bySetting = new Map()));
  let r = bySetting.get(setting ?? '');
  if (!r) bySetting.set(setting ?? '', (r = checkChanges(s, setting)));
  return r;
}

function compilePlan(plan: Plan, target: (key: string) => Route, signer: Signer | undefined): CompiledPlan {
  const d = decide(plan, signer !== undefined, { operation: plan.operation, target: plan.target, signed: "parameters the request's signature covers" });
  // A bridged operation goes nowhere upstream: it has no target route.
  const json = plan.request.flatMap((p) => (p.kind === 'json' ? p.steps : []));
  const steps = d.answer;
  const rewrite = steps ? (status: number, body: Buffer) => migrateAnswer(steps, status, body) : null;
  return { plan, ...d, target: d.refusal || plan.bridge ? (null as unknown as Route) : target(plan.target), signer, json: json.length ? json : null, rewrite };
}
