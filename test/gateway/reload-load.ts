// Reloads under steady load (~200 requests a second): valid edits alternate with broken ones.
// Shared by the fast test (4 reloads) and the soak (20).
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from '../support/assert.js';
import { createLogger } from '../../src/log.js';
import { gatewayAt } from '../support/gateway.js';
import { ROOT, type Upstream } from '../support/processes.js';
import { tempDir } from '../support/temp.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Folders made here, for the caller to remove. */
export const dirs: string[] = [];

/** A catalogue copy with an extra endpoints file the test rewrites. */
export function catalogueCopy(): { dir: string; write(body: string): void } {
  const dir = tempDir('reload-');
  dirs.push(dir);
  cpSync(join(ROOT, 'catalogue'), dir, { recursive: true });
  const file = join(dir, 'exchange/endpoints/extra.yaml');
  const write = (body: string) => writeFileSync(file, `module: extra\ntitle: Extra (test)\nendpoints:\n${body}`);
  write('  - { method: GET, path: /api/v3/extra0, source: test }\n');
  return { dir, write };
}

export const endpoint = (n: number) => `  - { method: GET, path: /api/v3/extra${n}, source: test }\n`;
const broken = (n: number) => `${endpoint(n)}  - method: GET\n    path: /api/v3/broken${n}\n    parameters:\n      - { name: x, schema: { type: integr } }\n`;

export async function reloadsUnderLoad(upstream: Upstream, reloads: number): Promise<void> {
  const cat = catalogueCopy();
  const lines: string[] = [];
  const gw = await gatewayAt('3.12.0', upstream.url, ['--catalogue', cat.dir], { logger: createLogger('info', (l) => lines.push(l)) });
  let sent = 0;
  const failures: string[] = [];
  let running = true;
  const load = (async () => {
    while (running) {
      const t = performance.now();
      try {
        const res = await fetch(`${gw.url}/api/v3/ping`);
        await res.arrayBuffer();
        if (res.status !== 200) failures.push(`status ${res.status}`);
      } catch (e) {
        failures.push((e as Error).message);
      }
      sent++;
      await sleep(Math.max(0, 5 - (performance.now() - t))); // ~200 requests a second
    }
  })();
  try {
    for (let n = 1; n <= reloads; n++) {
      const valid = n % 2 === 1;
      cat.write(valid ? endpoint(n) : broken(n));
      const outcome = await gw.reload('test');
      if (valid) {
        assert.ok(outcome.ok, JSON.stringify(outcome));
        assert.match(outcome.summary, /exchange 3\.12\.0: .*1 endpoint-added.*1 endpoint-removed|exchange 3\.12\.0: .*1 endpoint-removed.*1 endpoint-added/);
        assert.is((await fetch(`${gw.url}/api/v3/extra${n}`)).status, 200, `extra${n} is served right after its reload`);
      } else {
        assert.not.ok(outcome.ok);
        assert.ok(outcome.problems!.some((p) => /extra\.yaml:\d+: .*integr/.test(p)), outcome.problems!.join('\n'));
        assert.is((await fetch(`${gw.url}/api/v3/extra${n}`)).status, 404, 'a refused edit is not applied');
        assert.is((await fetch(`${gw.url}/api/v3/extra${n - 1}`)).status, 200, 'the last good program keeps serving');
      }
    }
  } finally {
    running = false;
    await load;
    await gw.close();
  }
  assert.equal(failures, [], `${failures.length} of ${sent} requests failed`);
  assert.ok(sent > 50, `only ${sent} requests sent`);
  const logged = lines.map((l) => JSON.parse(l) as { level: string; msg: string });
  assert.ok(logged.some((l) => l.level === 'info' && /^reloaded \(test\) in \d+ ms: exchange 3\.12\.0: /.test(l.msg)), lines.join(''));
  assert.ok(logged.some((l) => l.level === 'warn' && /^reload \(test\) refused, still serving catalogue [0-9a-f]{16}:\n.*extra\.yaml:\d+: /.test(l.msg)), lines.join(''));
}
