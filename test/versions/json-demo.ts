// A small versioned service written for the JSON version-change tests: release r1 (the old one,
// also what a client sending no version header gets) and r2 (what the upstream speaks), with body
// fields as `in: body` parameters, and one change per kind of step on JSON bodies and answers.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../support/processes.js';
import { tempDir } from '../support/temp.js';

export const SERVICE = `
id: demo
title: Demo API whose JSON bodies and answers change between releases
kind: proxy
source: written for this test
upstreams: { rest: https://api.demo.test }
errors: { envelope: message, documentationUrl: https://docs.demo.test/rest }
versionHeader: { name: X-Demo-Api-Version, values: { '2022-11-28': r1, '2026-03-10': r2 }, absent: r1 }
credentials: { forward: true }
`;
const RELEASES = `
releases:
  - { id: r0, date: '2023-01-01' }
  - { id: r1, date: '2024-01-01' }
  - { id: r2, date: '2026-03-10' }
`;
export const ENDPOINTS = `
module: demo
endpoints:
  - method: POST
    path: /repos/{owner}/{repo}/issues
    parameters:
      - { name: owner, in: path }
      - { name: repo, in: path }
      - { name: title, in: body, required: true, schema: { type: string } }
      - { name: assignee, in: body, removed: r2, schema: { type: string } }
      - { name: assignees, in: body, schema: { type: array, items: { type: string } } }
  - method: GET
    path: /repos/{owner}/{repo}/issues
    parameters: [ { name: owner, in: path }, { name: repo, in: path } ]
  - method: PATCH
    path: /repos/{owner}/{repo}
    parameters:
      - { name: owner, in: path }
      - { name: repo, in: path }
      - { name: use_squash_pr_title_as_default, in: body, removed: r2, schema: { type: boolean } }
      - { name: squash_merge_commit_title, in: body, added: r2, schema: { type: string, enum: [PR_TITLE, COMMIT_OR_PR_TITLE] } }
      - name: security
        in: body
        schema: { type: object, properties: { wiki: { type: boolean }, has_wiki: { type: boolean }, level: { type: integer } } }
      - name: rules
        in: body
        schema: { type: array, items: { type: object, properties: { type: { type: string }, old_param: { type: string }, param: { type: string } } } }
  - method: GET
    path: /repos/{owner}/{repo}
    parameters: [ { name: owner, in: path }, { name: repo, in: path } ]
  - method: POST
    path: /orgs/{org}/teams
    parameters:
      - { name: org, in: path }
      - { name: name, in: body, required: true }
      - { name: permission, in: body, removed: r2 }
      - { name: privacy, in: body, schema: { type: string, enum: [secret, closed] } }
      - { name: notify, in: body, added: r2, schema: { type: boolean } }
  - method: PUT
    path: /orgs/{org}/secrets/{secret_name}
    parameters:
      - { name: org, in: path }
      - { name: secret_name, in: path }
      - { name: selected_repository_ids, in: body, schema: { type: array, items: { type: [integer, string] } } }
  - method: PUT
    path: /repos/{owner}/{repo}/pulls/{pull_number}/merge
    parameters:
      - { name: owner, in: path }
      - { name: repo, in: path }
      - { name: pull_number, in: path, schema: { type: integer } }
      - { name: merge_method, in: body, schema: { type: string } }
  - method: DELETE
    path: /app/installations/{installation_id}
    parameters: [ { name: installation_id, in: path, schema: { type: integer } } ]
  - { method: POST, path: /user/repos, parameters: [ { name: name, in: body } ] }
  - { method: GET, path: /user/repos }
  - method: POST
    path: /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches
    parameters: [ { name: owner, in: path }, { name: repo, in: path }, { name: workflow_id, in: path } ]
  - { method: GET, path: /rate_limit }
  - { method: GET, path: /search/issues, parameters: [ { name: q, required: true } ] }
  - method: GET
    path: /repos/{owner}/{repo}/events/{event_id}
    parameters: [ { name: owner, in: path }, { name: repo, in: path }, { name: event_id, in: path } ]
  - method: GET
    path: /repos/{owner}/{repo}/legacy/{number}
    removed: r2
    parameters: [ { name: owner, in: path }, { name: repo, in: path }, { name: number, in: path, schema: { type: integer } } ]
  - method: GET
    path: /repos/{owner}/{repo}/items/{number}
    parameters: [ { name: owner, in: path }, { name: repo, in: path }, { name: number, in: path, schema: { type: integer } } ]
`;
const change = (id: string, operation: string, steps: string) => `  - id: ${id}\n    release: r2\n    operation: ${operation}\n    source: written for this test\n${steps}`;
export const CHANGES = `
changes:
${change('issue-assignees', 'POST /repos/{owner}/{repo}/issues', `    request:
      - list: { assignee: assignees }
    answer:
      - copy: { assignee: 'assignees[0]' }
      - restore: { assignee: null }
`)}${change('listed-issue-assignee', 'GET /repos/{owner}/{repo}/issues', `    answer:
      - copy: { assignee: 'assignees[0]' }
`)}${change('squash-title', 'PATCH /repos/{owner}/{repo}', `    request:
      - map: { parameter: use_squash_pr_title_as_default, to: squash_merge_commit_title, values: { 'true': PR_TITLE, 'false': COMMIT_OR_PR_TITLE } }
      - rename: { security.wiki: security.has_wiki, 'rules[].old_param': 'rules[].param' }
      - default: { security.level: 2 }
`)}${change('repo-downloads', 'GET /repos/{owner}/{repo}', `    answer:
      - lost: [has_downloads]
`)}${change('team-permission', 'POST /orgs/{org}/teams', `    request:
      - drop: [permission]
      - default: { privacy: secret }
      - set: { notify: true }
`)}${change('secret-repository-ids', 'PUT /orgs/{org}/secrets/{secret_name}', `    request:
      - integers: ['selected_repository_ids[]']
`)}${change('installation-deleted-later', 'DELETE /app/installations/{installation_id}', `    answer:
      - status: { 202: 204 }
`)}${change('trade-controls', 'POST /user/repos', `    answer:
      - status: { 451: 422 }
`)}${change('user-repos-visibility', 'GET /user/repos', `    answer:
      - { rename: { visibility_name: visibility }, in: '[]' }
`)}${change('dispatch-run-details', 'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', `    answer:
      - status: { 200: 204 }
`)}${change('rate-in-resources', 'GET /rate_limit', `    answer:
      - copy: { rate: resources.core }
`)}${change('search-assignee', 'GET /search/issues', `    answer:
      - { copy: { assignee: 'assignees[0]' }, in: 'items[]' }
`)}${change('event-merged', 'GET /repos/{owner}/{repo}/events/{event_id}', `    answer:
      - { restore: { merged: false }, in: pull_request }
      - { lost: [merge_commit_sha], in: pull_request }
`)}${change('legacy-to-items', 'GET /repos/{owner}/{repo}/legacy/{number}', `    request:
      - move: GET /repos/{owner}/{repo}/items/{number}
`)}
unbridgeable:
  - release: r2
    operation: PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge
    parameter: merge_method
    values: [rebase-legacy]
    replacement: merge_method rebase
    reason: the legacy rebase is gone
    source: written for this test
`;

/** A catalogue folder holding only the demo service; `edit` changes its changes.yaml and endpoints. */
export function jsonDemoCatalogue(edit: { changes?: (t: string) => string; endpoints?: (t: string) => string } = {}): string {
  const dir = tempDir('json-changes-');
  cpSync(join(ROOT, 'catalogue', 'schema'), join(dir, 'schema'), { recursive: true });
  mkdirSync(join(dir, 'demo', 'endpoints'), { recursive: true });
  writeFileSync(join(dir, 'demo', 'service.yaml'), SERVICE);
  writeFileSync(join(dir, 'demo', 'releases.yaml'), RELEASES);
  writeFileSync(join(dir, 'demo', 'endpoints', 'demo.yaml'), (edit.endpoints ?? ((t) => t))(ENDPOINTS));
  writeFileSync(join(dir, 'demo', 'changes.yaml'), (edit.changes ?? ((t) => t))(CHANGES));
  return dir;
}
