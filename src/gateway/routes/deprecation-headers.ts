// The Deprecation / Link / Sunset headers of an endpoint deprecated at the pin, computed once per
// route: RFC 9745 Deprecation (the deprecating release's date), the successor as a Link, and
// RFC 8594 Sunset when a later release removes it.
import type { Release } from '../../catalogue/model.js';
import type { EndpointAt, ReleaseView } from '../../catalogue/resolve.js';

const httpDate = (r: Release) => new Date(`${r.date}T00:00:00Z`).toUTCString();
const unixSeconds = (r: Release) => Math.floor(Date.parse(`${r.date}T00:00:00Z`) / 1000);

export function deprecationHeaders(view: ReleaseView, at: EndpointAt): Record<string, string> | null {
  const ep = at.endpoint;
  if (at.status !== 'deprecated' || ep.span.deprecated === null) return null;
  const releases = view.service.releases;
  const headers: Record<string, string> = { deprecation: `@${unixSeconds(releases[ep.span.deprecated])}` };
  const successor = ep.replacement && /^[A-Z]+ (\/\S*)$/.exec(ep.replacement)?.[1];
  if (successor) headers.link = `<${successor}>; rel="successor-version"`;
  if (ep.span.removed !== null) headers.sunset = httpDate(releases[ep.span.removed]);
  return headers;
}
