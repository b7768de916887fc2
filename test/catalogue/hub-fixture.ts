// A small catalogue of a templated API (service "hub", releases r1–r3) for the tests of path
// templates and body fields: the loader's, the export's and the diff's.
import { rmSync } from 'node:fs';
import { catalogueFolder } from './folder.js';

export const SERVICE = "id: hub\ntitle: Hub\nkind: proxy\nupstreams: { rest: 'http://127.0.0.1:1' }\nerrors: { envelope: error }\nschemas:\n  Label: { type: string, maxLength: 5 }\n";
export const RELEASES = "releases:\n  - { id: r1, date: '2024-01-01' }\n  - { id: r2, date: '2024-02-01' }\n  - { id: r3, date: '2024-03-01' }\n";

/** Loads without a problem or a warning. */
export const GOOD = `module: issues
endpoints:
  - method: GET
    path: /repos/{owner}/{repo}/issues/{issue_number}
    parameters: # not in path order: pathParameters and the export put them in it
      - { name: issue_number, in: path, required: true, schema: { type: integer, minimum: 1 } }
      - { name: repo, in: path }
      - { name: owner, in: path }
  - method: GET
    path: /repos/{owner}/{repo}/issues/comments
    parameters: [{ name: repo, in: path }, { name: owner, in: path }]
  - method: POST
    path: /repos/{owner}/{repo}/issues
    parameters:
      - { name: owner, in: path }
      - { name: repo, in: path }
      - { name: title, in: body, required: true }
      - { name: labels, in: body, schema: { type: array, items: { $ref: '#/$defs/Label' } } }
      - { name: assignee, in: body, removed: r3, replacement: assignees }
      - { name: assignees, in: body, added: r2, schema: { type: array, items: { type: string } } }
      - { name: per_page, schema: { type: integer } }
      - { name: per_page, in: body, schema: { type: integer } }
  - method: GET
    path: /repos/{owner}/{repo}/contents/{path}
    parameters: [{ name: owner, in: path }, { name: repo, in: path }, { name: path, in: path, multiSegment: true }]
  - method: GET
    path: /
`;

/** Run with a folder holding the hub service with these endpoints (and extra files), removed after. */
export function withCatalogue<T>(endpoints: string, run: (dir: string) => T, extra: Record<string, string> = {}): T {
  const dir = catalogueFolder({ 'hub/service.yaml': SERVICE, 'hub/releases.yaml': RELEASES, 'hub/endpoints/e.yaml': endpoints, ...extra }, 'cat-paths-');
  try {
    return run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

