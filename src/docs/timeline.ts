// The /_gateway/releases page: every release of each versioned service, newest first, with its date,
// its notes and what changed since the release before it (the diff engine of src/diff), and any two
// releases side by side (?from=<id>&to=<id>[&service=<id>]). Server-rendered HTML, no script.
import type { Release, Service } from '../catalogue/model.js';
import { resolveService, type ReleaseView } from '../catalogue/resolve.js';
import { diffReleases, summary, type Change } from '../diff/index.js';
import { esc, page } from './html.js';

/** A change's subject as people read it: the endpoint, method, stream or enum, and the part of it. */
function subject(c: Change): string {
  const where = c.endpoint ?? (c.wsMethod ? `websocket-API method ${c.wsMethod}` : c.enum ? `enum ${c.enum}` : c.kind === 'stream' ? `stream ${c.name}` : `websocket-API method ${c.name}`);
  return `<code>${esc(where)}</code>`;
}

function changeItem(c: Change): string {
  return `<li><span class="sev-${c.severity}">${c.severity}</span> ${subject(c)}: ${esc(c.message)} <span class="muted">(${esc(c.id)})</span></li>`;
}

/** The state of a changed item at <from> and at <to>, for the side-by-side table. */
function sides(c: Change): [string, string] {
  if (c.before !== undefined || c.after !== undefined) return [c.before ?? '—', c.after ?? '—'];
  const what = c.kind === 'enum-value' ? 'accepted' : 'served';
  if (c.id.endsWith('-added')) return ['absent', what];
  if (c.id.endsWith('-removed')) return [what, 'removed'];
  if (c.id.endsWith('-undeprecated')) return ['deprecated', what];
  if (c.id.endsWith('-deprecated')) return [what, 'deprecated'];
  return ['', ''];
}

interface ServiceTimeline {
  service: Service;
  pinned: Set<string>;
  /** Changes of release i since release i-1 (index 0: none, it is the first). */
  changes: Change[][];
}

/** Versioned services of the pin with each release's changes, computed once per pin (see route.ts). */
export function timelines(views: ReleaseView[]): ServiceTimeline[] {
  const out = new Map<string, ServiceTimeline>();
  for (const v of views) {
    if (!v.release) continue;
    let t = out.get(v.service.id);
    if (!t) {
      const svc = v.service;
      const catalogue = { dir: '', services: [svc] };
      const changes = svc.releases.map((r, i) => (i === 0 ? [] : diffReleases(catalogue, svc, svc.releases[i - 1].id, r.id).changes));
      out.set(svc.id, (t = { service: svc, pinned: new Set(), changes }));
    }
    t.pinned.add(v.release.id);
  }
  return [...out.values()];
}

export class TimelineQueryError extends Error {}

export function timelinePage(list: ServiceTimeline[], query: URLSearchParams): string {
  if (!list.length) return page('Release timeline', 'releases', '<main><h1>Release timeline</h1><p>No service of this gateway has releases.</p></main>');
  const chosen = pickService(list, query.get('service'));
  const from = query.get('from');
  const to = query.get('to');
  const parts = [`<main>`, `<h1>Release timeline · ${esc(chosen.service.title)}</h1>`, intro(chosen), compareForm(list, chosen, from, to)];
  if (from !== null || to !== null) parts.push(comparison(chosen, from, to));
  parts.push(releaseList(chosen), `</main>`);
  return page(`Releases · ${chosen.service.title}`, 'releases', parts.join('\n'));
}

function pickService(list: ServiceTimeline[], id: string | null): ServiceTimeline {
  if (id === null) return list[0];
  const t = list.find((x) => x.service.id === id);
  if (!t) throw new TimelineQueryError(`service "${id}" has no timeline here; valid: ${list.map((x) => x.service.id).join(', ')}`);
  return t;
}

function intro(t: ServiceTimeline): string {
  const n = t.service.releases.length;
  return `<p class="muted">${n} release${n === 1 ? '' : 's'}, newest first; this gateway serves ${[...t.pinned].map((id) => `<a href="#r-${esc(id)}">${esc(id)}</a>`).join(', ')}. Each release lists what changed since the one before it, with the rule ids and severities of <code>npm run diff</code>.</p>`;
}

function compareForm(list: ServiceTimeline[], t: ServiceTimeline, from: string | null, to: string | null): string {
  const ids = t.service.releases.map((r) => r.id);
  const pinned = [...t.pinned].at(-1)!;
  const fromSel = from ?? ids[Math.max(0, ids.indexOf(pinned) - 1)];
  const toSel = to ?? pinned;
  const options = (sel: string) => [...ids].reverse().map((id) => `<option${id === sel ? ' selected' : ''}>${esc(id)}</option>`).join('');
  const service =
    list.length > 1
      ? `<label>Service <select name="service">${list.map((x) => `<option value="${esc(x.service.id)}"${x === t ? ' selected' : ''}>${esc(x.service.title)}</option>`).join('')}</select></label>`
      : '';
  return `<form class="compare" method="get" action="releases">${service}
  <label>From <select name="from">${options(fromSel)}</select></label>
  <label>To <select name="to">${options(toSel)}</select></label>
  <button type="submit">Compare side by side</button></form>`;
}

function release(t: ServiceTimeline, id: string | null, name: string): Release {
  const r = id === null ? undefined : t.service.releases.find((x) => x.id === id);
  if (!r) throw new TimelineQueryError(`${name}=${id ?? ''} is not a release of ${t.service.id}; valid: ${t.service.releases.map((x) => x.id).join(', ')}`);
  return r;
}

function comparison(t: ServiceTimeline, fromId: string | null, toId: string | null): string {
  const from = release(t, fromId, 'from');
  const to = release(t, toId, 'to');
  const result = diffReleases({ dir: '', services: [t.service] }, t.service, from.id, to.id);
  const rows = result.changes.map((c) => {
    const [a, b] = sides(c);
    const part = c.value !== undefined ? ` value <code>${esc(c.value)}</code>` : c.name !== undefined && (c.endpoint || c.wsMethod) ? ` ${esc(c.kind === 'parameter' ? 'parameter' : '')} <code>${esc(c.name)}</code>` : '';
    return `<tr><td>${subject(c)}${part}</td><td class="from">${esc(a)}</td><td class="to">${esc(b)}</td><td class="sev-${c.severity}">${c.severity}</td><td>${esc(c.release)}</td><td>${esc(c.message)}</td></tr>`;
  });
  return `<section class="comparison" id="compare">
  <h2>${esc(t.service.id)} ${esc(from.id)} → ${esc(to.id)}: ${esc(summary(result.changes))}</h2>
  <div class="sides">${side(t.service, from)}${side(t.service, to)}</div>
  ${rows.length ? `<table class="diff"><thead><tr><th>Item</th><th>at ${esc(from.id)}</th><th>at ${esc(to.id)}</th><th>Severity</th><th>Changed in</th><th>Change</th></tr></thead>
  <tbody>${rows.join('\n')}</tbody></table>` : '<p>Nothing a client sees differs between these releases.</p>'}
  </section>`;
}

function side(svc: Service, r: Release): string {
  const v = resolveService(svc, r.id);
  return `<div class="side"><h3>${esc(r.id)} <span class="muted">${esc(r.date)}</span></h3>
    <p>${esc(r.notes ?? '')}</p>
    <p class="muted">${v.served.length} endpoints, ${v.wsMethods.length} websocket-API methods, ${v.streams.length} streams</p></div>`;
}

function releaseList(t: ServiceTimeline): string {
  const items: string[] = [];
  const rs = t.service.releases;
  for (let i = rs.length - 1; i >= 0; i--) {
    const r = rs[i];
    const pinned = t.pinned.has(r.id);
    const head = `<div class="release-head"><h2>${esc(r.id)}</h2><time datetime="${esc(r.date)}">${esc(r.date)}</time>${r.effective ? `<span class="muted">effective <time datetime="${esc(r.effective)}">${esc(r.effective)}</time></span>` : ''}${pinned ? '<span class="badge pinned">served by this gateway</span>' : ''}${i > 0 ? `<a href="releases?from=${encodeURIComponent(rs[i - 1].id)}&amp;to=${encodeURIComponent(r.id)}#compare">compare with ${esc(rs[i - 1].id)}</a>` : ''}</div>`;
    const notes = r.notes ? `<p>${esc(r.notes)}</p>` : '';
    let body: string;
    if (i === 0) {
      const v = resolveService(t.service, r.id);
      body = `<p class="muted">First release: ${v.served.length} endpoints, ${v.wsMethods.length} websocket-API methods, ${v.streams.length} streams.</p>`;
    } else {
      const cs = t.changes[i];
      body = `<p class="summary">${esc(summary(cs))}</p>${cs.length ? `<ul class="changes">${cs.map(changeItem).join('\n')}</ul>` : ''}`;
    }
    items.push(`<li id="r-${esc(r.id)}" class="release${pinned ? ' pinned' : ''}">${head}${notes}${body}</li>`);
  }
  return `<ol class="timeline">\n${items.join('\n')}\n</ol>`;
}
