// Presentation only: the classified changes as text (terminal, grouped by endpoint), markdown
// (PR comment, grouped by kind then endpoint), JSON (the stable machine contract, described by
// json-schema.ts), JUnit XML (CI test reports), GitHub Actions annotations, or one HTML page.
import { formatGithub } from './format-github.js';
import { formatHtml } from './format-html.js';
import { formatJunit } from './format-junit.js';
import { compareSubjects, type SubjectRef } from './order.js';
import { subjectOf } from './rules.js';
import { countBySeverity, KIND_TITLE, releaseLabel, summary } from './format-common.js';
import { KINDS, SEVERITIES, type Change, type DiffResult, type EnumUser, type Severity } from './types.js';

export { countBySeverity, KIND_TITLE, releaseLabel, summary };

export const FORMATS = ['text', 'markdown', 'json', 'junit', 'github', 'html'] as const;
export type Format = (typeof FORMATS)[number];

export interface FormatOptions {
  /** junit: changes at or above this severity are failures (default breaking). */
  failOn?: Severity;
  /** github: the catalogue folder as the annotations' paths start (relative to the repository root). */
  pathPrefix?: string;
}

export function format(result: DiffResult, fmt: Format, opts: FormatOptions = {}): string {
  if (fmt === 'json') return formatJson(result);
  if (fmt === 'markdown') return formatMarkdown(result);
  if (fmt === 'junit') return formatJunit(result, opts.failOn ?? 'breaking');
  if (fmt === 'github') return formatGithub(result, opts.pathPrefix ?? '');
  if (fmt === 'html') return formatHtml(result);
  return formatText(result);
}


export function formatJson(r: DiffResult): string {
  return `${JSON.stringify({ service: r.service, from: r.from, to: r.to, ...(r.releases ? { releases: r.releases } : {}), ...(r.droppedReleases?.length ? { droppedReleases: r.droppedReleases } : {}), changes: r.changes }, null, 2)}\n`;
}



export const SUBJECT_LABEL = { endpoint: '', enum: 'enum ', 'ws-method': 'websocket-API method ', stream: 'stream ' };

export interface Group {
  subject: SubjectRef;
  changes: Change[];
}

/** Changes grouped by what they touch, subjects in the order of compareSubjects. */
export function bySubject(changes: readonly Change[]): Group[] {
  const groups = new Map<string, Group>();
  for (const c of changes) {
    const subject = subjectOf(c);
    const k = `${subject.type}\0${subject.id}`;
    const g = groups.get(k) ?? { subject, changes: [] };
    g.changes.push(c);
    groups.set(k, g);
  }
  return [...groups.values()].sort((a, b) => compareSubjects(a.subject, b.subject));
}

/** "enum TransferType (used by type of GET /x, …)"; `q` quotes names (markdown code spans). */
export function title(g: Group, q: (s: string) => string): string {
  const { type, id } = g.subject;
  const users = g.changes[0].usedBy;
  const used = users?.length ? ` (used by ${users.map((u) => user(u, q)).join(', ')})` : '';
  return `${SUBJECT_LABEL[type]}${q(id)}${used}`;
}

function user(u: EnumUser, q: (s: string) => string): string {
  if (u.stream !== undefined) return `stream ${q(u.stream)}`;
  if (u.endpoint !== undefined) return `${q(u.name)} of ${q(u.endpoint)}`;
  return `${q(u.name)} of websocket-API method ${q(u.wsMethod!)}`;
}

export function formatText(r: DiffResult): string {
  const lines = [`${r.service} ${r.from} → ${r.to}: ${summary(r.changes)}`];
  if (r.droppedReleases?.length) lines.push(`releases deleted from the catalogue (clients pinned there lose them): ${r.droppedReleases.join(', ')}`);
  const wSev = Math.max(...SEVERITIES.map((s) => s.length));
  const rel = (c: Change) => releaseLabel(c, r.releases);
  const wRel = Math.max(0, ...r.changes.map((c) => rel(c).length));
  const wId = Math.max(0, ...r.changes.map((c) => c.id.length));
  for (const g of bySubject(r.changes)) {
    lines.push('', title(g, (x) => x));
    for (const c of g.changes) {
      lines.push(`  ${c.severity.padEnd(wSev)}  ${rel(c).padEnd(wRel)}  ${c.id.padEnd(wId)}  ${c.message}`);
      if (c.source) lines.push(`  ${''.padEnd(wSev + wRel + wId + 4)}  source: ${c.source}`);
    }
  }
  return `${lines.join('\n')}\n`;
}


export function formatMarkdown(r: DiffResult): string {
  return `${[`## ${r.service} ${r.from} → ${r.to}`, '', ...markdownBody(r.changes, 3, r.releases)].join('\n')}\n`;
}

/** Summary line, then one section per kind (at heading `level`), changes grouped by endpoint. */
export function markdownBody(changes: readonly Change[], level: number, releases?: readonly string[]): string[] {
  const item = (c: Change) => itemLine(c, releases);
  const out = [summary(changes, (s) => `**${s}**`)];
  for (const kind of KINDS) {
    const ofKind = changes.filter((c) => c.kind === kind);
    if (!ofKind.length) continue;
    out.push('', `${'#'.repeat(level)} ${KIND_TITLE[kind]} (${ofKind.length})`, '');
    // One parameter change made to many endpoints at once (a service-wide parameter such as a
    // header) reads best as one line; everything else stays grouped by endpoint.
    const same = new Map<string, Change[]>();
    if (kind === 'parameter') for (const c of ofKind) if (c.endpoint) same.set(sameKey(c), [...(same.get(sameKey(c)) ?? []), c]);
    const shared = [...same.values()].filter((cs) => cs.length >= SHARED_MIN);
    for (const cs of shared) out.push(`- ${item(cs[0])}: on ${cs.length} endpoints: ${cs.map((c) => code(c.endpoint!)).join(', ')}`);
    const apart = new Set(shared.flat());
    for (const g of bySubject(ofKind.filter((c) => !apart.has(c)))) {
      const head = `- ${title(g, code)}`;
      if (g.changes.length === 1) out.push(`${head}: ${item(g.changes[0])}`);
      else out.push(head, ...g.changes.map((c) => `  - ${item(c)}`));
    }
  }
  return out;
}

/** Identical parameter changes on at least this many endpoints are written once, with the endpoints listed. */
const SHARED_MIN = 5;
const sameKey = (c: Change) => `${c.id}\0${c.release}\0${(c.releases ?? []).join(' ')}\0${c.message}`;

function itemLine(c: Change, releases?: readonly string[]): string {
  const sev = c.severity === 'info' ? c.severity : `**${c.severity}**`;
  return `${sev} \`${c.id}\` in ${escapeMarkdown(releaseLabel(c, releases))}: ${escapeMarkdown(c.message)}`;
}

function code(s: string): string {
  return `\`${s.replaceAll('`', "'")}\``;
}

/**
 * Stream templates (<symbol>) and names with * or _ must render as written. An underscore inside a
 * word (MAIN_PAY) never starts emphasis in GitHub markdown, so only the others are escaped.
 */
export function escapeMarkdown(s: string): string {
  const word = (ch: string | undefined) => ch !== undefined && /[A-Za-z0-9]/.test(ch);
  return s
    .replace(/[\\`*[\]|]|_/g, (ch, at: number) => (ch === '_' && word(s[at - 1]) && word(s[at + 1]) ? ch : `\\${ch}`))
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;');
}
