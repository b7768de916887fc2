// The refusal table of docs/architecture.md stays in step with the reason table the gateway uses.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { REASONS } from '../../src/catalogue/reasons.js';
import { ROOT } from '../support/processes.js';

test('every reason of src/catalogue/reasons.ts is in the refusal table of docs/architecture.md, with its status, and no other', () => {
  const readme = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const start = readme.indexOf('| reason | status | exchange code |');
  assert.ok(start >= 0, 'docs/architecture.md has a reasons table');
  const rows = readme.slice(start).split('\n\n')[0].split('\n').slice(2);
  const listed = new Map<string, string>();
  for (const row of rows) {
    const [names, statuses] = row.split('|').slice(1, 3).map((c) => c.trim());
    const ns = [...names.matchAll(/`(\w+)`/g)].map((m) => m[1]);
    const ss = statuses.split('/').map((x) => x.trim().slice(0, 3));
    ns.forEach((n, i) => listed.set(n, ss[Math.min(i, ss.length - 1)]));
  }
  for (const [name, def] of Object.entries(REASONS)) {
    assert.ok(listed.has(name), `reason ${name} missing from the table of docs/architecture.md`);
    assert.is(listed.get(name), String(def.status), `${name}: docs/architecture.md says ${listed.get(name)}, the table ${def.status}`);
  }
  assert.equal([...listed.keys()].filter((n) => !(n in REASONS)), [], 'docs/architecture.md lists reasons that do not exist');
});

test.run();
