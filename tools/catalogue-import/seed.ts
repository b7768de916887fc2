// Parser of the exchange seed document (data/seeds/exchange-api-catalogue.md).
//
// The seed is the authoritative description of the exchange API's endpoints and releases. Tests
// derive their expectations from it (never from hand-copied lists); the one-off generator that
// first wrote catalogue/exchange from it is retired (see README.md here). Everything here is pure
// except the two functions that locate and read the file.
//
//   const seed = loadExchangeSeed();
//   seed.endpoints   every "- METHOD /path tags" line of the Endpoints section, section defaults applied
//   seed.releases    the Versioning table, oldest first
//   seed.parameterChanges  rows of the "Parameter changes" table
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const EXCHANGE_SEED_FILE = 'exchange-api-catalogue.md';

/** One endpoint line of the seed's Endpoints section. */
export interface SeedEndpoint {
  method: string;
  path: string;
  /** Release of the `[x]` added tag, or the section's default ("added in X unless tagged otherwise"). */
  added?: string;
  /** Release of a "removed X" tag, or the section's default ("(deleted in X)"). */
  removed?: string;
  /** Release of a "deprecated in X" tag. */
  deprecated?: string;
  /** "in favour of METHOD /path" of a deprecation tag. */
  replacement?: string;
  /** Everything after the path, exactly as written (may be empty). */
  tags: string;
  /** Heading of the ### section the line is in. */
  section: string;
  /** 1-based line number in the seed document. */
  line: number;
}

export interface SeedRelease {
  id: string;
  date: string;
  notes: string;
}

export interface SeedParameterChange {
  /** "METHOD /path" keys the row names (short forms such as "/ticker/price" expanded); empty for prose rows. */
  endpoints: string[];
  /** The endpoint column as written. */
  endpointText: string;
  parameters: string[];
  change: string;
  /** Release in parentheses in the change column, when there is exactly one. */
  release?: string;
}

export interface ExchangeSeed {
  file: string;
  endpoints: SeedEndpoint[];
  /** Oldest first, like catalogue/exchange/releases.yaml. */
  releases: SeedRelease[];
  parameterChanges: SeedParameterChange[];
}

/** The repository's data/ folder: the vendored documents the import tools and tests read (see data/README.md). */
export function dataDir(): string {
  return join(repoRoot(), 'data');
}

/** Folder holding the seed documents: data/seeds. */
export function seedDir(): string {
  return join(dataDir(), 'seeds');
}

/** Path of a file under data/ (the client tables, CHANGELOG, OpenAPI); throws a clear error when missing. */
export function dataFile(name: string): string {
  const file = join(dataDir(), name);
  if (!existsSync(file)) throw new Error(`data file not found: ${file} (data/README.md lists the vendored files)`);
  return file;
}

/** The repository root (folder with package.json and catalogue/), searched upwards from this file. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'catalogue'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`repository root not found above ${fileURLToPath(import.meta.url)} (no folder with package.json and catalogue/)`);
    dir = up;
  }
}

/** Path of a seed document; throws a clear error when it is missing. */
export function seedFile(name: string = EXCHANGE_SEED_FILE): string {
  const file = join(seedDir(), name);
  if (!existsSync(file)) {
    throw new Error(`seed document not found: ${file} (data/README.md lists the vendored files)`);
  }
  return file;
}

/** Read and parse the exchange seed. */
export function loadExchangeSeed(file: string = seedFile()): ExchangeSeed {
  const text = readFileSync(file, 'utf8');
  const releases = parseSeedReleases(text);
  return { file, endpoints: parseSeedEndpoints(text, releases.map((r) => r.id)), releases, parameterChanges: parseSeedParameterChanges(text) };
}

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'];
const RELEASE_TOKEN = /[0-9]+\.[0-9]+\.[0-9]+(?:-?rc[0-9]+)?/;

/** Lines of one `## Title` section (without the heading), with their 1-based line numbers. */
function section(text: string, title: string): { text: string; line: number }[] {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => l.trim() === `## ${title}`);
  if (start < 0) return [];
  const out = [];
  for (let i = start + 1; i < lines.length && !/^## /.test(lines[i]); i++) out.push({ text: lines[i], line: i + 1 });
  return out;
}

/** Defaults a `### heading` gives its lines: "(added in X unless tagged otherwise)", "(deleted in X)". */
export function sectionDefaults(heading: string): { added?: string; removed?: string } {
  const added = new RegExp(`added in (${RELEASE_TOKEN.source}) unless tagged otherwise`).exec(heading)?.[1];
  const removed = new RegExp(`\\((?:deleted|removed) in (${RELEASE_TOKEN.source})\\)`).exec(heading)?.[1];
  return { ...(added ? { added } : {}), ...(removed ? { removed } : {}) };
}

/**
 * Lifecycle facts of one tag text. `[x]` (or `[x; …` / `[x, …`) at the start is the added release;
 * "removed x" / "deleted x" the removal; "deprecated in x" the deprecation, with "in favour of M /path"
 * its replacement. Release-like tokens that are not in `known` (when given) are ignored.
 */
export function parseTags(tags: string, known?: readonly string[]): Pick<SeedEndpoint, 'added' | 'removed' | 'deprecated' | 'replacement'> {
  const ok = (id: string | undefined) => (id && (!known || known.includes(id)) ? id : undefined);
  const out: Pick<SeedEndpoint, 'added' | 'removed' | 'deprecated' | 'replacement'> = {};
  const added = ok(new RegExp(`^\\[(${RELEASE_TOKEN.source})[\\],;]`).exec(tags)?.[1]);
  if (added) out.added = added;
  const removed = ok(new RegExp(`\\b(?:removed|deleted) (${RELEASE_TOKEN.source})`).exec(tags)?.[1]);
  if (removed) out.removed = removed;
  const deprecated = ok(new RegExp(`\\bdeprecated in (${RELEASE_TOKEN.source})`).exec(tags)?.[1]);
  if (deprecated) out.deprecated = deprecated;
  const replacement = new RegExp(`in favour of (${METHODS.join('|')}) (/\\S+?)[),;]?(?:\\s|$)`).exec(tags);
  if (replacement) out.replacement = `${replacement[1]} ${replacement[2].replace(/[),;]+$/, '')}`;
  return out;
}

/** Every endpoint line of the Endpoints section (websocket-method lines are not endpoints). */
export function parseSeedEndpoints(text: string, knownReleases?: readonly string[]): SeedEndpoint[] {
  const out: SeedEndpoint[] = [];
  let heading = '';
  let defaults: { added?: string; removed?: string } = {};
  for (const { text: l, line } of section(text, 'Endpoints')) {
    const h = /^### (.+)$/.exec(l);
    if (h) {
      heading = h[1].trim();
      defaults = sectionDefaults(heading);
      continue;
    }
    const m = new RegExp(`^- (${METHODS.join('|')}) (/\\S*)(?:\\s+(.*))?$`).exec(l.trimEnd());
    if (!m) continue;
    const tags = (m[3] ?? '').trim();
    const facts = parseTags(tags, knownReleases);
    out.push({
      method: m[1],
      path: m[2],
      ...(facts.added ?? defaults.added ? { added: facts.added ?? defaults.added } : {}),
      ...(facts.removed ?? defaults.removed ? { removed: facts.removed ?? defaults.removed } : {}),
      ...(facts.deprecated ? { deprecated: facts.deprecated } : {}),
      ...(facts.replacement ? { replacement: facts.replacement } : {}),
      tags,
      section: heading,
      line,
    });
  }
  return out;
}

/** Rows of a markdown table whose header row starts with `firstHeader`. */
function tableRows(lines: { text: string; line: number }[], firstHeader: string): string[][] {
  const start = lines.findIndex((l) => new RegExp(`^\\|\\s*${firstHeader}\\s*\\|`).test(l.text));
  if (start < 0) return [];
  const rows = [];
  for (let i = start + 2; i < lines.length && lines[i].text.trim().startsWith('|'); i++) {
    rows.push(lines[i].text.trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim()));
  }
  return rows;
}

/** The Versioning table, oldest first (the document lists it newest first). */
export function parseSeedReleases(text: string): SeedRelease[] {
  return tableRows(section(text, 'Versioning'), 'Release')
    .map(([id, date, notes]) => ({ id, date, notes: notes ?? '' }))
    .filter((r) => RELEASE_TOKEN.test(r.id))
    .reverse();
}

/** Rows of the "Parameter changes" table. Short paths ("/ticker/price") take the previous row entry's prefix. */
export function parseSeedParameterChanges(text: string): SeedParameterChange[] {
  const lines = section(text, 'Endpoints');
  return tableRows(lines, 'Endpoint').map(([endpointText, params, change]) => {
    const endpoints: string[] = [];
    let method = '';
    let prefix = '';
    for (const part of endpointText.split(',').map((s) => s.trim())) {
      const full = new RegExp(`^(${METHODS.join('|')}) (/\\S+)$`).exec(part);
      if (full) {
        method = full[1];
        prefix = full[2].split('/').slice(0, 3).join('/'); // e.g. /api/v3
        endpoints.push(`${method} ${full[2]}`);
      } else if (method && part.startsWith('/')) {
        endpoints.push(`${method} ${prefix}${part}`);
      }
    }
    const releases = [...change.matchAll(new RegExp(`\\((${RELEASE_TOKEN.source})\\)`, 'g'))].map((m) => m[1]);
    return {
      endpoints,
      endpointText,
      parameters: params.split(/\s*[,/]\s*/).map((p) => p.trim()).filter(Boolean),
      change,
      ...(releases.length === 1 ? { release: releases[0] } : {}),
    };
  });
}

export type SeedStatus = 'not-yet' | 'alive' | 'removed';

/** Status of a seed endpoint at a release, ordered by the seed's own Versioning table. */
export function seedStatusAt(e: Pick<SeedEndpoint, 'added' | 'removed'>, releaseId: string, releases: readonly SeedRelease[]): SeedStatus {
  const pos = (id: string) => {
    const i = releases.findIndex((r) => r.id === id);
    if (i < 0) throw new Error(`release "${id}" is not in the seed's Versioning table`);
    return i;
  };
  const at = pos(releaseId);
  if (e.added !== undefined && at < pos(e.added)) return 'not-yet';
  if (e.removed !== undefined && at >= pos(e.removed)) return 'removed';
  return 'alive';
}

/** "METHOD /path" of a seed endpoint. */
export const seedKey = (e: Pick<SeedEndpoint, 'method' | 'path'>): string => `${e.method} ${e.path}`;

/** The seed endpoints alive at a release (ordered by the seed's Versioning table). */
export function seedAliveAt(seed: Pick<ExchangeSeed, 'endpoints' | 'releases'>, releaseId: string): SeedEndpoint[] {
  return seed.endpoints.filter((e) => seedStatusAt(e, releaseId, seed.releases) === 'alive');
}
