// The /_gateway/docs page: Swagger UI (served by the gateway, see assets.ts) rendering the OpenAPI
// document of one pinned release set. A gateway pinned to several releases of a service shows one
// document per release, chosen with ?release=<id>.
import type { ReleaseView } from '../catalogue/resolve.js';
import { toOpenApi } from '../catalogue/to-openapi.js';
import { esc, page } from './html.js';

/** The views one document describes: at most one release of each service. */
export interface SpecSet {
  /** Release id of the versioned services in the set, or "current" when none is versioned. */
  id: string;
  views: ReleaseView[];
}

/** One set per release id the versioned views are pinned to, each with every unversioned service. */
export function specSets(views: ReleaseView[]): SpecSet[] {
  const unversioned = views.filter((v) => !v.release);
  const ids = [...new Set(views.flatMap((v) => (v.release ? [v.release.id] : [])))];
  if (!ids.length) return [{ id: 'current', views }];
  return ids.map((id) => ({ id, views: [...views.filter((v) => v.release?.id === id), ...unversioned] }));
}

/** The OpenAPI JSON of a set. */
export function specJson(set: SpecSet): string {
  return JSON.stringify(toOpenApi(set.views));
}

export function docsPage(sets: SpecSet[], chosen: SpecSet): string {
  const choice =
    sets.length > 1
      ? `<p class="gw-sets">Release: ${sets.map((s) => (s === chosen ? `<strong>${esc(s.id)}</strong>` : `<a href="docs?release=${encodeURIComponent(s.id)}">${esc(s.id)}</a>`)).join(' · ')}</p>`
      : '';
  const head = `
  <link rel="stylesheet" href="docs/swagger-ui.css">
  <script src="docs/swagger-ui-bundle.js" defer></script>
  <script src="docs/init.js" defer></script>`;
  const spec = `docs/openapi/${encodeURIComponent(chosen.id)}.json`;
  return page(`API docs · ${chosen.views.map((v) => `${v.service.title}${v.release ? ` ${v.release.id}` : ''}`).join(' + ')}`, 'docs', `${choice}
  <div id="swagger-ui" data-spec="${esc(spec)}"></div>`, head);
}
