// The HTML shell shared by the docs and timeline pages: escaping, the navigation bar, and the one
// Content-Security-Policy that keeps every request a page makes on the gateway's own origin.

/** Text for HTML content and attribute values. */
export function esc(s: unknown): string {
  return String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Nothing is loaded from elsewhere ('self' only): scripts and styles are files the gateway serves,
 * Swagger UI's icons are data: URIs, and "try it out" calls the gateway itself. Inline styles stay
 * allowed because Swagger UI's React components set style attributes; inline scripts do not.
 */
export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

/** Links between the pages, relative to /_gateway/ so the gateway may sit behind a path prefix. */
const NAV: [href: string, label: string, id: string][] = [
  ['docs', 'REST API (OpenAPI)', 'docs'],
  ['releases', 'Release timeline', 'releases'],
  ['openapi.json', 'openapi.json', 'openapi'],
  ['asyncapi.json', 'asyncapi.json (websocket)', 'asyncapi'],
];

export function page(title: string, current: string, body: string, extraHead = ''): string {
  const nav = NAV.map(([href, label, id]) => `<a href="${href}"${id === current ? ' aria-current="page"' : ''}>${esc(label)}</a>`).join('\n    ');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${esc(title)}</title>
  <link rel="icon" href="docs/favicon-32x32.png">
  <link rel="stylesheet" href="docs/docs.css">${extraHead}
</head>
<body>
  <nav class="gw-nav">
    <strong>Gateway</strong>
    ${nav}
  </nav>
${body}
</body>
</html>
`;
}
