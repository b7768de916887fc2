// The refusal table of docs/architecture.md stays in step with the reason table the gateway uses,
// and every path the page names (its layout block, its `src/...` references) exists.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
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

/** Every file and folder under `dir` (folders with a trailing slash), relative to `root`. */
function pathsUnder(root: string, dir: string): string[] {
  if (!existsSync(join(root, dir)) || !statSync(join(root, dir)).isDirectory()) return [];
  return readdirSync(join(root, dir)).flatMap((name) => {
    const p = `${dir}${name}`;
    return statSync(join(root, p)).isDirectory() ? [`${p}/`, ...pathsUnder(root, `${p}/`)] : [p];
  });
}

const TOP = /^(src|test|tools|bench|docs|catalogue|data)\//;
const PATH_LIKE = /^[\w.-]+(\/[\w.-]+)*(\/|\.(ts|cjs|mjs|js|md|json|yaml))$/;

/**
 * The paths `doc` names that `root` lacks: a backticked path from the top of the checkout, and in
 * the layout block (the text block whose rows start with src/) every file or folder a row names,
 * found anywhere under that row's folder (the layout names a file by its folder's row).
 */
function missingPaths(doc: string, root: string): string[] {
  const missing: string[] = [];
  for (const [, p] of doc.matchAll(/`([^`\s]+)`/g)) {
    if ((TOP.test(p) || /^\.[\w.-]+$/.test(p)) && PATH_LIKE.test(p) && !existsSync(join(root, p))) missing.push(`\`${p}\``);
  }
  const layout = [...doc.matchAll(/```text\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => /^src\//m.test(b)) ?? '';
  let folder = '';
  for (const line of layout.split('\n')) {
    const first = /^(\S+)\s{2,}/.exec(line);
    if (first) folder = first[1].endsWith('/') ? first[1] : first[1].replace(/[^/]*$/, '');
    const under = pathsUnder(root, folder);
    for (const token of line.match(/[\w./-]+/g) ?? []) {
      if (!PATH_LIKE.test(token) || token === first?.[1]) continue;
      const found = TOP.test(token) ? existsSync(join(root, token)) : under.some((p) => p === `${folder}${token}` || p.endsWith(`/${token}`));
      if (!found) missing.push(`${folder}: ${token}`);
    }
  }
  return missing;
}

test('every path docs/architecture.md names exists', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
  assert.ok(/^src\/gateway\/\s/m.test(doc), 'docs/architecture.md has a layout block with a src/gateway/ row');
  assert.equal(missingPaths(doc, ROOT), [], 'paths named in docs/architecture.md that do not exist');
});

test('the path check names a missing file of a layout row and a missing backticked path', () => {
  const doc = '`src/gateway/nowhere.ts` and `src/gateway/pipeline.ts`\n```text\nsrc/gateway/          pipeline.ts, gone.ts,\n                      admin/ (admin.ts, lost/)\n```\n';
  assert.equal(missingPaths(doc, ROOT), ['`src/gateway/nowhere.ts`', 'src/gateway/: gone.ts', 'src/gateway/: lost/']);
});

test.run();
