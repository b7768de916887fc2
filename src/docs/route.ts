// The gateway's reading pages, as one function the admin routes call (this layer never imports the
// gateway): /_gateway/docs (+ its files under /_gateway/docs/…), /_gateway/releases and
// /_gateway/asyncapi.json. Everything derived from the pin is built on first request and kept for the
// life of the views array (a reload brings a new array, hence fresh pages).
import type { ReleaseView } from '../catalogue/resolve.js';
import { toAsyncApi } from '../catalogue/to-asyncapi.js';
import { asset } from './assets.js';
import { docsPage, specJson, specSets, type SpecSet } from './docs-page.js';
import { esc, page, PAGE_HEADERS } from './html.js';
import { TimelineQueryError, timelinePage, timelines } from './timeline.js';

export interface DocsAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

export const DOCS_PATHS = { docs: '/_gateway/docs', releases: '/_gateway/releases', asyncapi: '/_gateway/asyncapi.json' } as const;

interface Built {
  sets: SpecSet[];
  specs: Map<string, string>;
  asyncapi?: string;
  timelines?: ReturnType<typeof timelines>;
}

const built = new WeakMap<ReleaseView[], Built>();

function state(views: ReleaseView[]): Built {
  let b = built.get(views);
  if (!b) built.set(views, (b = { sets: specSets(views), specs: new Map() }));
  return b;
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' };

/**
 * The answer for a GET (or HEAD) of `path`, or undefined when the path is none of these pages (the
 * caller answers its own 404). `query` is the request's query string.
 */
export function docsRoute(path: string, query: URLSearchParams, views: ReleaseView[]): DocsAnswer | undefined {
  if (path === DOCS_PATHS.asyncapi) {
    const b = state(views);
    return { status: 200, headers: JSON_HEADERS, body: (b.asyncapi ??= JSON.stringify(toAsyncApi(views))) };
  }
  if (path === DOCS_PATHS.releases) {
    const b = state(views);
    try {
      return { status: 200, headers: PAGE_HEADERS, body: timelinePage((b.timelines ??= timelines(views)), query) };
    } catch (e) {
      if (!(e instanceof TimelineQueryError)) throw e;
      return { status: 400, headers: PAGE_HEADERS, body: page('Release timeline', 'releases', `<main><h1>Release timeline</h1><p class="error">${esc(e.message)}</p></main>`) };
    }
  }
  if (path === DOCS_PATHS.docs) {
    const b = state(views);
    const id = query.get('release');
    const set = id === null ? defaultSet(views, b.sets) : b.sets.find((s) => s.id === id);
    if (!set) return notFound(`release=${id} is not served here; valid: ${b.sets.map((s) => s.id).join(', ')}`, 400);
    return { status: 200, headers: PAGE_HEADERS, body: docsPage(b.sets, set) };
  }
  if (path === `${DOCS_PATHS.docs}/`) return { status: 301, headers: { location: '../docs' }, body: '' };
  if (!path.startsWith(`${DOCS_PATHS.docs}/`)) return undefined;
  const rest = path.slice(DOCS_PATHS.docs.length + 1);
  const spec = /^openapi\/([^/]+)\.json$/.exec(rest);
  if (spec) {
    const b = state(views);
    let id: string;
    try {
      id = decodeURIComponent(spec[1]);
    } catch {
      return notFound(`no docs file ${path}`);
    }
    const set = b.sets.find((s) => s.id === id);
    if (!set) return notFound(`no OpenAPI document for release ${id}; valid: ${b.sets.map((s) => s.id).join(', ')}`);
    let json = b.specs.get(id);
    if (json === undefined) b.specs.set(id, (json = specJson(set)));
    return { status: 200, headers: JSON_HEADERS, body: json };
  }
  const a = asset(rest);
  if (!a) return notFound(`no docs file ${path}`);
  return { status: 200, headers: { 'content-type': a.type, 'cache-control': 'public, max-age=3600', 'x-content-type-options': 'nosniff' }, body: a.body };
}

/** The page without ?release=: the newest release of the first versioned service (each service keeps its own line). */
function defaultSet(views: ReleaseView[], sets: SpecSet[]): SpecSet {
  const first = views.find((v) => v.release)?.service;
  return sets.filter((s) => s.views.some((v) => v.service === first)).at(-1) ?? sets.at(-1)!;
}

function notFound(message: string, status = 404): DocsAnswer {
  return { status, headers: JSON_HEADERS, body: JSON.stringify({ error: message }) };
}
