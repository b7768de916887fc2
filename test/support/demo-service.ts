// A small templated service ("demo") written for tests, and an upstream that records what reaches
// it: path templates with typed and multi-segment parameters, GitHub's error envelope, a version
// header, the client's Authorization forwarded, Link headers rewritten.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ROOT } from './processes.js';
import { onBody } from './request-body.js';
import { tempDir } from './temp.js';

export const DEMO_SERVICE = `
id: demo
title: Demo API with path templates
kind: proxy
source: written for this test
upstreams: { rest: https://api.demo.test }
errors: { envelope: message, documentationUrl: https://docs.demo.test/rest }
versionHeader: { name: X-Demo-Api-Version, values: { '2022-11-28': r2 }, absent: r2 }
credentials: { forward: true }
links: rewrite
`;
const RELEASES = `
releases:
  - { id: r1, date: '2024-01-01' }
  - { id: r2, date: '2025-01-01' }
`;
const ENDPOINTS = `
module: demo
endpoints:
  - method: GET
    path: /repos/{owner}/{repo}/issues/{issue_number}
    parameters:
      - { name: owner, in: path }
      - { name: repo, in: path }
      - { name: issue_number, in: path, schema: { type: integer, minimum: 1 } }
  - method: GET
    path: /repos/{owner}/{repo}/issues
    parameters:
      - { name: owner, in: path }
      - { name: repo, in: path }
      - { name: page, schema: { type: integer } }
  - method: GET
    path: /repos/{owner}/{repo}/contents/{path}
    parameters:
      - { name: owner, in: path }
      - { name: repo, in: path }
      - { name: path, in: path, multiSegment: true }
  - { method: GET, path: /gists/public }
  - method: GET
    path: /gists/{gist_id}
    parameters: [ { name: gist_id, in: path } ]
  - method: PATCH
    path: /gists/{gist_id}
    parameters: [ { name: gist_id, in: path } ]
  - method: POST
    path: /repos/{owner}/{repo}/issues
    parameters:
      - { name: owner, in: path }
      - { name: repo, in: path }
      - { name: title, in: body, required: true, schema: { type: string, maxLength: 256 } }
      - { name: labels, in: body, schema: { type: array, items: { type: string } } }
      - { name: milestone, in: body, removed: r2, schema: { type: integer } }
  - method: PUT
    path: /repos/{owner}/{repo}/lock
    parameters:
      - { name: owner, in: path }
      - { name: repo, in: path }
      - { name: reason, in: body, schema: { enum: [off-topic, spam] } }
  - method: GET
    path: /orgs/{org}/usage
    removed: r2
    parameters: [ { name: org, in: path } ]
`;
const CHANGES = `
changes: []
unbridgeable:
  - release: r2
    operation: GET /orgs/{org}/usage
    reason: the usage report was removed
    replacement: GET /orgs/{org}/metrics
    source: written for this test
  - release: r2
    operation: POST /repos/{owner}/{repo}/issues
    parameter: milestone
    reason: milestones were removed
    source: written for this test
`;

/** A catalogue folder holding only the demo service; `service` replaces its service.yaml. */
export function demoCatalogue(service = DEMO_SERVICE): string {
  const dir = tempDir('templates-');
  cpSync(join(ROOT, 'catalogue', 'schema'), join(dir, 'schema'), { recursive: true });
  mkdirSync(join(dir, 'demo', 'endpoints'), { recursive: true });
  writeFileSync(join(dir, 'demo', 'service.yaml'), service);
  writeFileSync(join(dir, 'demo', 'releases.yaml'), RELEASES);
  writeFileSync(join(dir, 'demo', 'endpoints', 'demo.yaml'), ENDPOINTS);
  writeFileSync(join(dir, 'demo', 'changes.yaml'), CHANGES);
  return dir;
}

export interface Seen { method: string; url: string; headers: IncomingHttpHeaders; body: string }

/** What a recording upstream answers a request with. */
export interface Answer { status: number; headers: Record<string, string>; body: string }

/** The default answer: 200 with the URL, and a Link header naming both of the upstream's origins. */
function linkAnswer(seen: Seen): Answer {
  const self = `http://${seen.headers.host}`;
  return {
    status: 200,
    headers: { 'content-type': 'application/json', link: `<https://api.demo.test/repositories/1/issues?page=2>; rel="next", <${self}/repositories/1/issues?page=9>; rel="last", <https://elsewhere.test/x>; rel="help"` },
    body: JSON.stringify({ url: seen.url }),
  };
}

/** An upstream that records each request (its body too) and answers with `answer`. */
export async function recordingUpstream(answer: (seen: Seen) => Answer = linkAnswer): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => onBody(req, (body) => {
    const s: Seen = { method: req.method!, url: req.url!, headers: req.headers, body: body.toString('utf8') };
    seen.push(s);
    const a = answer(s);
    res.writeHead(a.status, a.headers);
    res.end(a.body);
  }));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}
