// The gateway's reading pages: Swagger UI docs, the release timeline, the AsyncAPI document.
export { docsRoute, DOCS_PATHS, type DocsAnswer } from './route.js';
export { CSP } from './html.js';
