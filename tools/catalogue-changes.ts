// The version-change parts of `npm run catalogue`: lint's coverage and change checks (printed as
// lint prints the loader's problems), and `plan`, which shows the composed plan of one operation.
import { checkChanges } from '../src/catalogue/changes/check.js';
import { composePlan } from '../src/catalogue/changes/compose.js';
import { upstreamIndex } from '../src/catalogue/changes/lookup.js';
import { type Plan } from '../src/catalogue/changes/plan.js';
import { allOperations, operationKind, type OperationKind } from '../src/catalogue/changes/ws-operations.js';
import { formatProblem } from '../src/catalogue/problems.js';
import type { Catalogue } from '../src/catalogue/model.js';
import { UsageError } from '../src/args.js';
import { tokenRights } from '../src/gateway/migrate/decide.js';

/** Print the change problems, lost answer fields and coverage of every versioned service; returns the numbers of errors and of warnings. */
export function lintChanges(catalogue: Catalogue, loaderWarnings: number, upstream: Record<string, string> = {}, quiet = false): { errors: number; warnings: number } {
  let errors = 0;
  let warnings = loaderWarnings;
  for (const s of catalogue.services) {
    const { problems, warnings: lost, coverage } = checkChanges(s, upstream[s.id]);
    if (!quiet) for (const w of lost) console.log(`warning: ${formatProblem(w)}`);
    for (const p of problems) console.log(`error: ${formatProblem(p)}`);
    errors += problems.length;
    warnings += lost.length;
    if (coverage) {
      // One line per kind of operation: REST endpoints, websocket-API methods, stream templates.
      const of = (kind: OperationKind, list: string[]) => list.filter((k) => operationKind(k) === kind).length;
      const line = (kind: OperationKind, noun: string) => `${of(kind, coverage.bridged)} ${noun} bridged, ${of(kind, coverage.unbridgeable)} unbridgeable, ${of(kind, coverage.uncovered)} uncovered`;
      const partly = of('rest', coverage.partly) ? ` (${of('rest', coverage.partly)} with some values unbridgeable)` : '';
      console.log(`${s.id} against an upstream at ${coverage.upstreamRelease}: ${line('rest', 'operations')}${partly}`);
      if (s.wsMethods.length || s.streams.length) console.log(`${s.id} websockets against ${coverage.upstreamRelease}: ${line('ws-api', 'websocket-API methods')}; ${line('stream', 'streams')}`);
    }
  }
  if (errors) console.log(`${errors} error(s), ${warnings} warning(s)`);
  return { errors, warnings };
}

/** `plan <release> '<METHOD path>' [--service id] [--upstream-release id]`: the composed plan, as JSON. */
export function planCommand(catalogue: Catalogue, release: string, operation: string, serviceId?: string, upstreamRelease?: string): (Plan & { tokenRights: string }) | { operation: string; release: string; plan: null; note: string } {
  const versioned = catalogue.services.filter((s) => s.versioned && (!serviceId || s.id === serviceId));
  const service = versioned.find((s) => allOperations(s).some((e) => e.key === operation)) ?? versioned[0];
  if (!service) throw new UsageError(`no versioned service${serviceId ? ` "${serviceId}"` : ''} in the catalogue`);
  const s = service.releases.findIndex((r) => r.id === release);
  if (s < 0) throw new UsageError(`unknown release "${release}" for service ${service.id}; valid releases: ${service.releases.map((r) => r.id).join(', ')}`);
  if (upstreamRelease !== undefined && !service.releases.some((r) => r.id === upstreamRelease)) throw new UsageError(`unknown upstream release "${upstreamRelease}" for service ${service.id}`);
  const u = upstreamIndex(service, upstreamRelease);
  const plan = composePlan(service, operation, s, u);
  if (plan) return { ...plan, tokenRights: tokenRights(plan) };
  const exists = allOperations(service).some((e) => e.key === operation);
  return { operation, release, plan: null, note: exists ? `nothing changes for ${operation} between ${release} and ${service.releases[u].id}: it is forwarded as it is` : `${operation} is not an operation of service ${service.id}` };
}
