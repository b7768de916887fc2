// Random concrete paths of templated routes leave the gateway's tables bounded: every metrics label
// is a catalogue template (never a path sent), drift counts none of them as unknown, and the
// access log names the template. npm test sends 2 000 (templated-cardinality.test.ts), the soak 100 000.
import { Agent, request } from 'node:http';
import { randomBytes } from 'node:crypto';
import * as assert from '../support/assert.js';
import { gatewayAt } from '../support/gateway.js';
import type { Upstream } from '../support/processes.js';
import { createLogger } from '../../src/log.js';

/** A concrete path of one of GitHub's templates, with random values. */
function randomPath(i: number): string {
  const r = () => randomBytes(6).toString('hex');
  switch (i % 5) {
    case 0: return `/repos/${r()}/${r()}/issues/${i + 1}`;
    case 1: return `/gists/${r()}`;
    case 2: return `/repos/${r()}/${r()}/contents/${r()}/${r()}/${r()}.ts`;
    case 3: return `/repos/${r()}/${r()}/pulls?state=open&page=${i}`;
    default: return `/orgs/${r()}/teams`;
  }
}

export async function randomTemplatedPaths(upstream: Upstream, n: number): Promise<void> {
  const lines: string[] = [];
  const gw = await gatewayAt('all', upstream.url, [], { logger: createLogger('info', (l) => { if (lines.length < 2000) lines.push(l); }) });
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const sent = new Set<string>();
  try {
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < n) {
        const path = randomPath(next++);
        if (sent.size < 200) sent.add(path.split('?')[0].split('/')[2]);
        await new Promise<void>((resolve) => {
          const req = request(`${gw.url}${path}`, { agent, method: path.startsWith('/orgs/') ? 'POST' : 'GET', headers: { 'content-type': 'application/json' } }, (res) => { res.resume(); res.on('end', () => resolve()); });
          req.on('error', () => resolve());
          req.end(path.startsWith('/orgs/') ? '{"name":"t"}' : undefined);
        });
      }
    }));
    const metrics = await (await fetch(`${gw.url}/_gateway/metrics`)).text();
    const routes = new Set([...metrics.matchAll(/route="([^"]*)"/g)].map((m) => m[1]));
    const templates = ['/repos/{owner}/{repo}/issues/{issue_number}', '/gists/{gist_id}', '/repos/{owner}/{repo}/contents/{path}', '/repos/{owner}/{repo}/pulls', '/orgs/{org}/teams'];
    for (const t of templates) assert.ok(routes.has(t), `metrics label ${t}`);
    for (const value of sent) assert.not.ok(metrics.includes(value), `a concrete value (${value}) in the metrics`);
    assert.ok(routes.size < 40, `${routes.size} route labels`);
    const drift = await (await fetch(`${gw.url}/_gateway/drift`)).json() as { unknownOperations: { total: number } };
    assert.is(drift.unknownOperations.total, 0);
    const access = lines.filter((l) => l.includes('"route"')).map((l) => (JSON.parse(l) as { route: string }).route);
    assert.ok(access.length > 0);
    for (const r of access) assert.ok(templates.includes(r), `access line route ${r}`);
  } finally {
    agent.destroy();
    await gw.close();
  }
}
