// The part of GitHub's REST API description that catalogue/github holds, cut out of the published
// document so that the repository vendors a few hundred KB instead of three 11–13 MB files.
//
//   npm run build && node dist/tools/github-subset.js [<version> ...]   (default: the three of SNAPSHOTS)
//
// For each version it runs `npm pack @octokit/openapi@<version>` in a temporary folder, reads
// `generated/api.github.com.json` from the tarball and writes `data/github/api.github.com-<version>.json`:
// the operations of SUBSET with their parameters and request bodies as published, and only the
// components their request side refers to (transitively). Responses keep their status codes and
// descriptions (the gateway does not validate answers). Left out, as nothing here reads them:
// examples (`example`, `examples`), `x-github` metadata and the response bodies and headers.
// `subsetOf` is pure, so a test checks that the vendored files are their own subset.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startedOn } from '../src/cli/entry.js';

/** The releases of catalogue/github: package version, release id (the octokit/openapi git tag's date). */
export const SNAPSHOTS = [
  { version: '17.0.0', release: '2024-11-06' },
  { version: '19.0.0', release: '2025-04-09' },
  { version: '22.0.0', release: '2025-12-09' },
] as const;

/** Issue 44's subset: every operation whose first tag is one of `tags`, plus `operations`. */
export const SUBSET = {
  tags: ['meta', 'rate-limit', 'issues', 'pulls', 'projects', 'copilot', 'dependabot'],
  operations: [
    'GET /repos/{owner}/{repo}', 'PATCH /repos/{owner}/{repo}', 'POST /user/repos', 'POST /orgs/{org}/repos', 'POST /orgs/{org}/teams',
    'DELETE /app/installations/{installation_id}', 'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
    'GET /repos/{owner}/{repo}/hooks/{hook_id}/deliveries', 'GET /repos/{owner}/{repo}/contents/{path}',
    'GET /repos/{owner}/{repo}/compare/{basehead}', 'GET /gists/public', 'GET /gists/{gist_id}',
  ],
};

export const PACKAGE = '@octokit/openapi';
export const PACKAGE_FILE = 'generated/api.github.com.json';
export const dataName = (version: string) => `api.github.com-${version}.json`;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const DROPPED = new Set(['example', 'examples', 'x-github']);

type Json = Record<string, any>;

/** Whether an operation is in the subset. */
export function inSubset(method: string, path: string, op: Json): boolean {
  return SUBSET.tags.includes(op.tags?.[0]) || SUBSET.operations.includes(`${method.toUpperCase()} ${path}`);
}

/** The subset of an OpenAPI document: SUBSET's operations and the components their requests need. */
export function subsetOf(doc: Json): Json {
  const paths: Json = {};
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    const kept: Json = {};
    for (const [m, op] of Object.entries<Json>(item)) {
      if (METHODS.includes(m) && inSubset(m, path, op)) kept[m] = operation(op);
    }
    if (!Object.keys(kept).length) continue;
    paths[path] = item.parameters ? { parameters: item.parameters, ...kept } : kept;
  }
  const components = needed(paths, doc.components ?? {});
  const out: Json = {};
  for (const [k, v] of Object.entries(doc)) {
    if (k === 'paths') out.paths = paths;
    else if (k === 'components') out.components = components;
    else if (k !== 'x-webhooks' && k !== 'webhooks') out[k] = v;
  }
  return out;
}

/** An operation without examples and metadata (and its description unless deprecated), its responses reduced to their descriptions. */
function operation(op: Json): Json {
  const out = strip(op);
  // The catalogue writes summaries; a description matters where it names what replaces a deprecated operation.
  if (op.deprecated !== true) delete out.description;
  if (op.responses) {
    out.responses = Object.fromEntries(Object.entries<Json>(op.responses).map(([code, r]) => [code, r.$ref ? { $ref: r.$ref } : { description: r.description ?? '' }]));
  }
  return out;
}

/** A copy without the keys nothing reads (examples, x-github), at every depth; `names`: v's keys are property names, kept. */
function strip(v: any, names = false): any {
  if (Array.isArray(v)) return v.map((x) => strip(x));
  if (!v || typeof v !== 'object') return v;
  const out: Json = {};
  for (const [k, x] of Object.entries(v)) if (names || !DROPPED.has(k)) out[k] = strip(x, !names && k === 'properties');
  return out;
}

/** The components the kept paths refer to, transitively; responses reduced like an operation's. */
function needed(paths: Json, components: Json): Json {
  const out: Json = {};
  const pending: string[] = [];
  const visit = (v: any): void => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (!v || typeof v !== 'object') return;
    if (typeof v.$ref === 'string') pending.push(v.$ref);
    for (const x of Object.values(v)) visit(x);
  };
  visit(paths);
  const seen = new Set<string>();
  while (pending.length) {
    const ref = pending.shift()!;
    if (seen.has(ref)) continue;
    seen.add(ref);
    const m = /^#\/components\/([^/]+)\/(.+)$/.exec(ref);
    if (!m) throw new Error(`$ref ${ref}: only #/components/<kind>/<name> is followed`);
    const [, kind, name] = m;
    const target = components[kind]?.[name];
    if (target === undefined) throw new Error(`$ref ${ref}: no such component`);
    const kept = kind === 'responses' ? { description: target.description ?? '' } : target;
    visit(kept);
    (out[kind] ??= {})[name] = kept;
  }
  // Same order as the source, so a rebuild's diff shows only what changed.
  const ordered: Json = {};
  for (const kind of Object.keys(components)) {
    if (!out[kind]) continue;
    ordered[kind] = Object.fromEntries(Object.keys(components[kind]).filter((n) => n in out[kind]).map((n) => [n, strip(out[kind][n])]));
  }
  return ordered;
}

/**
 * The vendored text of a subset: one line per path and per component (a rebuild's diff shows which
 * changed), without the indentation that would make the files half as big again.
 */
export function subsetText(doc: Json): string {
  return `${layout(subsetOf(doc), '', 2)}\n`;
}

/** Objects laid out one key a line down to `depth` levels; below that, one line each. */
function layout(v: unknown, indent: string, depth: number): string {
  if (depth === 0 || !v || typeof v !== 'object' || Array.isArray(v) || !Object.keys(v).length) return JSON.stringify(v);
  const inner = `${indent} `;
  const lines = Object.entries(v).map(([k, x]) => `${inner}${JSON.stringify(k)}: ${layout(x, inner, k === 'components' ? depth : depth - 1)}`);
  return `{\n${lines.join(',\n')}\n${indent}}`;
}

export const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/** `npm pack` one version into a temporary folder and read its description (with the tarball's file sha256). */
function packed(version: string): { doc: Json; sha: string; bytes: number } {
  const dir = mkdtempSync(join(tmpdir(), 'github-subset-'));
  try {
    const out = execFileSync('npm', ['pack', `${PACKAGE}@${version}`, '--silent'], { cwd: dir, encoding: 'utf8' }).trim().split('\n').at(-1)!;
    execFileSync('tar', ['-xzf', out, `package/${PACKAGE_FILE}`], { cwd: dir });
    const buf = readFileSync(join(dir, 'package', PACKAGE_FILE));
    return { doc: JSON.parse(buf.toString('utf8')) as Json, sha: sha256(buf), bytes: buf.length };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function main(argv: string[]): number {
  const versions = argv.length ? argv : SNAPSHOTS.map((s) => s.version);
  const dataDir = fileURLToPath(new URL('../../data/github/', import.meta.url));
  for (const v of versions) {
    const { doc, sha, bytes } = packed(v);
    const text = subsetText(doc);
    writeFileSync(join(dataDir, dataName(v)), text);
    const count = Object.values<Json>(JSON.parse(text).paths).reduce((n, item) => n + Object.keys(item).filter((k) => METHODS.includes(k)).length, 0);
    console.log(`${PACKAGE}@${v} ${PACKAGE_FILE} (${bytes} bytes, sha256 ${sha}) → data/github/${dataName(v)}: ${count} operations, ${Buffer.byteLength(text)} bytes`);
  }
  return 0;
}

if (startedOn(import.meta.url)) process.exitCode = main(process.argv.slice(2));
