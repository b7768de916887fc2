// data/github: the vendored subsets of GitHub's description are what tools/github-subset.ts makes,
// hold the operations of issue 44's subset and nothing else, and keep the request side whole (every
// $ref resolves inside the file). The registry is never called: the extraction run on a vendored
// file must give its bytes back.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { ROOT } from '../support/processes.js';
import { dataName, inSubset, SNAPSHOTS, SUBSET, subsetText } from '../../tools/github-subset.js';

const test = suite('github subset');

const text = (version: string) => readFileSync(join(ROOT, 'data/github', dataName(version)), 'utf8');
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function operations(doc: any): string[] {
  return Object.entries<any>(doc.paths).flatMap(([path, item]) => Object.keys(item).filter((m) => METHODS.includes(m)).map((m) => `${m.toUpperCase()} ${path}`));
}

for (const { version } of SNAPSHOTS) {
  test(`${version}: the extraction run on the vendored file changes no byte`, () => {
    const t = text(version);
    assert.is(subsetText(JSON.parse(t)), t);
  });

  test(`${version}: only subset operations, each with a first tag of the subset or named by it, 139–147 in all`, () => {
    const doc = JSON.parse(text(version));
    const ops = operations(doc);
    assert.ok(ops.length >= 139 && ops.length <= 147, `${ops.length} operations`);
    for (const key of ops) {
      const [m, path] = key.split(' ');
      assert.ok(inSubset(m, path, doc.paths[path][m.toLowerCase()]), key);
    }
    for (const named of SUBSET.operations) assert.ok(ops.includes(named), `${named} is in ${version}`);
  });

  test(`${version}: every $ref resolves inside the file; no examples, no response bodies`, () => {
    const doc = JSON.parse(text(version));
    const refs: string[] = [];
    const walk = (v: any, key = ''): void => {
      if (Array.isArray(v)) return v.forEach((x) => walk(x));
      if (!v || typeof v !== 'object') return;
      if (typeof v.$ref === 'string') refs.push(v.$ref);
      assert.not.ok(key !== 'properties' && ('example' in v || 'x-github' in v), `${key}: ${JSON.stringify(v).slice(0, 80)}`);
      for (const [k, x] of Object.entries(v)) walk(x, k);
    };
    walk(doc);
    assert.ok(refs.length > 100, `${refs.length} refs`);
    for (const ref of refs) {
      const target = ref.slice(2).split('/').reduce((o: any, k: string) => o?.[k], doc);
      assert.ok(target !== undefined, `${ref} resolves`);
    }
    for (const item of Object.values<any>(doc.paths)) {
      for (const [m, op] of Object.entries<any>(item)) {
        if (!METHODS.includes(m)) continue;
        for (const r of Object.values<any>(op.responses)) assert.not.ok('content' in r || 'headers' in r, `${m} response has a body`);
      }
    }
  });
}

test('the multi-segment parameters of 22.0.0 are the ones of contents and compare', () => {
  const doc = JSON.parse(text('22.0.0'));
  const multi: string[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [m, op] of Object.entries<any>(item)) {
      for (const p of op.parameters ?? []) {
        const param = p.$ref ? doc.components.parameters[p.$ref.split('/').at(-1)] : p;
        if (param['x-multi-segment']) multi.push(`${m.toUpperCase()} ${path} ${param.name}`);
      }
    }
  }
  assert.equal(multi.sort(), ['GET /repos/{owner}/{repo}/compare/{basehead} basehead', 'GET /repos/{owner}/{repo}/contents/{path} path']);
});

test.run();
