// Release diff of one catalogue service: what a client pinned to <from> sees change at <to>.
//   ReleaseView × ReleaseView ──diff──▶ neutral deltas ──rules──▶ classified changes ──format──▶ text | markdown | json
// <from> may be newer than <to> (a downgrade: additions become removals, dated by the release
// that added the item); <from> equal to <to> gives no changes.
import type { Catalogue, Service } from '../catalogue/model.js';
import { findService, UnknownReleaseError } from '../catalogue/resolve.js';
import { oneOf, UsageError } from '../usage-error.js';
import { diffWalk, Walk } from './diff.js';
import { isIgnored, type Ignore } from './ignore.js';
import { classify } from './rules.js';
import type { DiffResult } from './types.js';

export interface DiffOptions {
  /** Changes to leave out (see parseIgnore). */
  ignore?: Ignore;
}

export function diffReleases(catalogue: Catalogue, service: string | Service, from: string, to: string, opts: DiffOptions = {}): DiffResult {
  const svc = typeof service === 'string' ? findService(catalogue, service) : service;
  const fromAt = releaseAt(svc, from);
  const toAt = releaseAt(svc, to);
  let changes = fromAt === toAt ? [] : classify(diffWalk(new Walk(svc, fromAt, toAt)));
  if (opts.ignore) changes = changes.filter((c) => !isIgnored(c, opts.ignore!));
  return { service: svc.id, from, to, changes };
}

/** The service named by --service, or the catalogue's one service with releases. */
export function versionedService(catalogue: Catalogue, id: string | undefined): Service {
  const versioned = catalogue.services.filter((s) => s.versioned);
  const ids = versioned.map((s) => s.id);
  if (id === undefined) {
    if (versioned.length === 1) return versioned[0];
    throw new UsageError(`choose a service with --service; valid: ${ids.join(', ')}`);
  }
  return versioned[ids.indexOf(oneOf('service', id, ids))];
}

/** Position of a release; unknown ids throw UnknownReleaseError, which lists the valid ones. */
export function releaseAt(svc: Service, id: string): number {
  if (!svc.versioned) throw new UsageError(`service ${svc.id} has no releases to compare`);
  const at = svc.releases.findIndex((r) => r.id === id);
  if (at < 0) throw new UnknownReleaseError(svc, id);
  return at;
}

export { changelog } from './changelog.js';
export { FORMATS, format, formatJson, formatMarkdown, formatText, summary, countBySeverity, type Format } from './format.js';
export { parseIgnore, isIgnored, type Ignore } from './ignore.js';
export { RULES, RULE_IDS, severityRank } from './rules.js';
export type { Change, DiffResult, Kind, Severity } from './types.js';
