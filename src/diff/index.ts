// Release diff of one catalogue service: what a client pinned to <from> sees change at <to>; and
// base diff: what an edit of the catalogue changes for clients pinned at each release.
//   ReleaseView × ReleaseView ──diff──▶ neutral deltas ──rules──▶ classified changes ──format──▶ text | markdown | json | junit | github | html
// <from> may be newer than <to> (a downgrade: additions become removals, dated by the release
// that added the item); <from> equal to <to> gives no changes.
import { answerDeltas } from './answers.js';
import type { Catalogue, Service } from '../catalogue/model.js';
import { findService, UnknownReleaseError } from '../catalogue/resolve.js';
import { oneOf, UsageError } from '../usage-error.js';
import { diffBase } from './base.js';
import { diffWalk } from './diff.js';
import { Walk } from './sides.js';
import { isIgnored, type Ignore } from './ignore.js';
import { withOldClients } from './old-clients.js';
import { classify, DEFAULT_CONTEXT, type RuleContext } from './rules.js';
import { applySeverity, type SeverityOverrides } from './severity.js';
import type { Change, DiffResult } from './types.js';
import { relativePositions } from './where.js';

export interface DiffOptions {
  /** Changes to leave out (see parseIgnore). */
  ignore?: Ignore;
  /** Per-rule severities, 'off' drops the rule (see parseSeverity). */
  severity?: SeverityOverrides;
  /** Releases an endpoint must stay deprecated before removal (policy rules); default 1. */
  deprecationReleases?: number;
}

export function diffReleases(catalogue: Catalogue, service: string | Service, from: string, to: string, opts: DiffOptions = {}): DiffResult {
  const svc = typeof service === 'string' ? findService(catalogue, service) : service;
  const fromAt = releaseAt(svc, from);
  const toAt = releaseAt(svc, to);
  // An upgrade also reads the answer changes changes.yaml declares (the catalogue holds no answer schemas).
  const deltas = fromAt === toAt ? [] : [...diffWalk(new Walk(svc, fromAt, toAt)), ...(fromAt < toAt ? answerDeltas(svc, fromAt, toAt) : [])];
  const classified = classify(deltas, context(opts));
  // An upgrade says, per breaking change, whether the gateway carries old clients across it.
  const changes = fromAt < toAt ? withOldClients(svc, classified) : classified;
  return { service: svc.id, from, to, changes: finish(changes, [catalogue.dir], opts) };
}

export interface BaseResult extends DiffResult {
  releases: string[];
  /** Releases of the base missing from the working catalogue (a published release deleted). */
  droppedReleases: string[];
}

/**
 * Base diff of one service: `head` (the working catalogue) against `base`, per release of the
 * working catalogue (or those in `releases`). `baseLabel` names the base in the output.
 */
export function diffCatalogues(
  base: Catalogue, head: Catalogue, service: string | Service, baseLabel: string, opts: DiffOptions & { releases?: string[] } = {},
): BaseResult {
  const headSvc = typeof service === 'string' ? findService(head, service) : service;
  const baseSvc = base.services.find((s) => s.id === headSvc.id);
  if (!baseSvc) throw new UsageError(`service ${headSvc.id} is not in the base catalogue ${baseLabel}; it has: ${base.services.map((s) => s.id).join(', ')}`);
  for (const r of opts.releases ?? []) releaseAt(headSvc, r);
  const d = diffBase(baseSvc, headSvc, opts.releases);
  const changes = classify(d.deltas, context(opts));
  return {
    service: headSvc.id, from: baseLabel, to: 'working catalogue', releases: d.releases, droppedReleases: d.droppedReleases,
    changes: finish(changes, [head.dir, base.dir], opts),
  };
}

function context(opts: DiffOptions): RuleContext {
  return { ...DEFAULT_CONTEXT, ...(opts.deprecationReleases !== undefined ? { deprecationReleases: opts.deprecationReleases } : {}) };
}

function finish(changes: Change[], dirs: string[], opts: DiffOptions): Change[] {
  let out = relativePositions(changes, dirs);
  if (opts.severity) out = applySeverity(out, opts.severity);
  if (opts.ignore) out = out.filter((c) => !isIgnored(c, opts.ignore!));
  return out;
}

/**
 * The service named by --service; else the one whose releases include every id in `releases` (each
 * service keeps its own release line, so a release id names its service); else the catalogue's
 * first versioned service.
 */
export function versionedService(catalogue: Catalogue, id: string | undefined, releases: readonly string[] = []): Service {
  const versioned = catalogue.services.filter((s) => s.versioned);
  const ids = versioned.map((s) => s.id);
  if (id !== undefined) return versioned[ids.indexOf(oneOf('service', id, ids))];
  if (!versioned.length) throw new UsageError('the catalogue has no service with releases');
  const owner = releases.length ? versioned.find((s) => releases.every((r) => s.releases.some((x) => x.id === r))) : undefined;
  return owner ?? versioned[0];
}

/** Position of a release; unknown ids throw UnknownReleaseError, which lists the valid ones. */
export function releaseAt(svc: Service, id: string): number {
  if (!svc.versioned) throw new UsageError(`service ${svc.id} has no releases to compare`);
  const at = svc.releases.findIndex((r) => r.id === id);
  if (at < 0) throw new UnknownReleaseError(svc, id);
  return at;
}

export { openBase, type BaseSource } from './base-source.js';
export { changelog } from './changelog.js';
export { FORMATS, format, formatJson, formatMarkdown, formatText, summary, countBySeverity, releaseLabel, type Format, type FormatOptions } from './format.js';
export { parseIgnore, isIgnored, type Ignore } from './ignore.js';
export { DIFF_JSON_SCHEMA } from './json-schema.js';
export { RULES, RULE_IDS, POLICY_RULE_IDS, severityRank, type RuleContext } from './rules.js';
export { parseSeverity, applySeverity, LEVELS, type Level, type SeverityOverrides } from './severity.js';
export type { Change, DiffResult, Kind, Severity } from './types.js';
