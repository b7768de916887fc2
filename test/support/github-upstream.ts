// A local stand-in for GitHub's REST API, speaking ONE version as GitHub documents it: requests
// with any other X-GitHub-Api-Version (or none, once it speaks only 2026-03-10) are answered 400 as
// GitHub answers an unsupported version. It answers the operations the GitHub tests and docs use,
// in that version's shapes (2022-11-28: `rate`, singular `assignee`, `hub_url`…; 2026-03-10: without
// them, 202 for an installation's deletion, 200 with run details for a workflow dispatch, 451 for
// a blocked repository creation), and records every request it gets.
//   node dist/test/support/github-upstream.js [--speaks 2022-11-28|2026-03-10] [--port 9100]
//   GET /__records: what it received (and answered); DELETE /__records: forget it.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { onBody } from './request-body.js';

export type GithubVersion = '2022-11-28' | '2026-03-10';

/** A request it received, and the status and body bytes it answered. */
export interface GithubRecord { method: string; url: string; headers: IncomingHttpHeaders; body: string; status?: number; answer?: string }

export interface GithubUpstream {
  url: string;
  records: GithubRecord[];
  stop(): Promise<void>;
}

const DOCS = 'https://docs.github.com/rest';
type Json = Record<string, unknown>;
type Answer = { status: number; body?: unknown; headers?: Record<string, string> };

export async function startGithubUpstream(speaks: GithubVersion = '2022-11-28', port = 0): Promise<GithubUpstream> {
  const records: GithubRecord[] = [];
  const server: Server = createServer((req, res) => onBody(req, (bytes) => {
    const body = bytes.toString('utf8');
    const url = req.url ?? '/';
    if (url === '/__records') {
      if (req.method === 'DELETE') records.length = 0;
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(req.method === 'DELETE' ? '{}' : JSON.stringify(records));
    }
    const record: GithubRecord = { method: req.method!, url, headers: req.headers, body };
    records.push(record);
    const a = answer(speaks, req.method!, url, req.headers, body, `http://${req.headers.host}`);
    const text = a.body === undefined ? '' : JSON.stringify(a.body);
    Object.assign(record, { status: a.status, answer: text });
    res.writeHead(a.status, { ...(text ? { 'content-type': 'application/json; charset=utf-8' } : {}), 'x-github-api-version-selected': speaks, ...a.headers });
    res.end(text);
  }));
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    records,
    stop: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

function answer(speaks: GithubVersion, method: string, url: string, headers: IncomingHttpHeaders, body: string, self: string): Answer {
  const asked = headers['x-github-api-version'] ?? (speaks === '2022-11-28' ? '2022-11-28' : undefined);
  if (asked !== speaks) {
    return { status: 400, body: { message: `Unsupported 'X-GitHub-Api-Version' header: ${String(asked ?? '(none)')}. Supported versions: ${speaks}`, documentation_url: `${DOCS}/about-the-rest-api/api-versions`, status: '400' } };
  }
  const path = url.split('?')[0];
  const now = speaks === '2026-03-10';
  let m: RegExpExecArray | null;
  const json = (): Json => (body ? JSON.parse(body) as Json : {});
  if (method === 'GET' && path === '/') return { status: 200, body: root(now) };
  if (method === 'GET' && path === '/rate_limit') return { status: 200, body: rateLimit(now) };
  if (method === 'GET' && path === '/gists/public') return { status: 200, body: [{ id: 'g1', public: true }] };
  if ((m = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)$/.exec(path)) && method === 'GET') return { status: 200, body: issue(now, Number(m[3]), ['octocat']) };
  if ((m = /^\/repos\/([^/]+)\/([^/]+)\/issues$/.exec(path))) {
    if (method === 'GET') {
      // Two pages; page 1's Link names page 2 on GitHub's public origin and on the origin it was reached at.
      if (new URL(url, self).searchParams.get('page') === '2') return { status: 200, body: [issue(now, 3, [])] };
      const next = `<https://api.github.com${path}?page=2>; rel="next", <${self}${path}?page=2>; rel="last"`;
      return { status: 200, body: [issue(now, 1, ['octocat']), issue(now, 2, [])], headers: { link: next } };
    }
    if (method === 'POST') {
      const b = json();
      const assignees = (b.assignees as string[] | undefined) ?? (!now && typeof b.assignee === 'string' ? [b.assignee] : []);
      return { status: 201, body: { ...issue(now, 42, assignees), title: b.title } };
    }
  }
  if ((m = /^\/repos\/([^/]+)\/([^/]+)\/pulls$/.exec(path)) && method === 'GET') return { status: 200, body: [pull(now, 7)] };
  if ((m = /^\/repos\/([^/]+)\/([^/]+)$/.exec(path)) && (method === 'GET' || method === 'PATCH')) return { status: 200, body: repo(now, m[2], method === 'PATCH' ? json() : {}) };
  if ((m = /^\/repos\/[^/]+\/[^/]+\/actions\/workflows\/[^/]+\/dispatches$/.exec(path)) && method === 'POST') {
    return now ? { status: 200, body: { workflow_run_id: 100, run_url: 'https://api.github.com/repos/o/r/actions/runs/100', html_url: 'https://github.com/o/r/actions/runs/100' } } : { status: 204 };
  }
  if (/^\/app\/installations\/\d+$/.test(path) && method === 'DELETE') return { status: now ? 202 : 204 };
  if ((path === '/user/repos' || /^\/orgs\/[^/]+\/repos$/.test(path)) && method === 'POST') {
    const b = json();
    if (b.name === 'blocked') return { status: now ? 451 : 422, body: { message: 'Repository creation is blocked by trade controls', documentation_url: DOCS, status: now ? '451' : '422' } };
    return { status: 201, body: repo(now, String(b.name), {}) };
  }
  if ((m = /^\/orgs\/([^/]+)\/teams$/.exec(path)) && method === 'POST') {
    const b = json();
    return { status: 201, body: { id: 5, name: b.name, permission: now ? 'pull' : (b.permission ?? 'pull') } };
  }
  return { status: 404, body: { message: 'Not Found', documentation_url: DOCS, status: '404' } };
}

function root(now: boolean): Json {
  const r: Json = { current_user_url: 'https://api.github.com/user', rate_limit_url: 'https://api.github.com/rate_limit', repository_url: 'https://api.github.com/repos/{owner}/{repo}' };
  if (!now) Object.assign(r, { authorizations_url: 'https://api.github.com/authorizations', hub_url: 'https://api.github.com/hub' });
  return r;
}

function rateLimit(now: boolean): Json {
  const core = { limit: 5000, used: 1, remaining: 4999, reset: 1767225600 };
  const r: Json = { resources: { core, search: { limit: 30, used: 0, remaining: 30, reset: 1767225600 } } };
  if (!now) r.rate = { ...core };
  return r;
}

const user = (login: string): Json => ({ login, id: login.length, type: 'User' });

function issue(now: boolean, n: number, assignees: string[]): Json {
  const i: Json = { number: n, title: `issue ${n}`, state: 'open', assignees: assignees.map(user) };
  if (!now) i.assignee = assignees.length ? user(assignees[0]) : null;
  return i;
}

function pull(now: boolean, n: number): Json {
  const p: Json = { ...issue(now, n, ['hubot']), head: { ref: 'feature' }, base: { ref: 'main' } };
  if (!now) p.merge_commit_sha = 'e5bd3914e2e596debea16f433f57875b5b90bcd6';
  return p;
}

function repo(now: boolean, name: string, patch: Json): Json {
  const r: Json = { id: 1296269, name, full_name: `octocat/${name}`, has_issues: true, squash_merge_commit_title: 'COMMIT_OR_PR_TITLE', ...patch };
  if (!now) r.has_downloads = true;
  return r;
}

/** Run on its own: `--speaks <version>` and `--port <n>`, then "port N" on stdout. */
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args.includes('--help')) {
    process.stdout.write('usage: node dist/test/support/github-upstream.js [--speaks 2022-11-28|2026-03-10] [--port 9100]\n');
    process.exit(0);
  }
  const at = (flag: string) => { const i = args.indexOf(flag); return i >= 0 ? args[i + 1] : undefined; };
  const speaks = (at('--speaks') ?? '2022-11-28') as GithubVersion;
  if (speaks !== '2022-11-28' && speaks !== '2026-03-10') {
    process.stderr.write(`--speaks: "${speaks}" is not 2022-11-28 or 2026-03-10\n`);
    process.exit(2);
  }
  const up = await startGithubUpstream(speaks, Number(at('--port') ?? 9100));
  process.stdout.write(`port ${new URL(up.url).port}\n`);
}
