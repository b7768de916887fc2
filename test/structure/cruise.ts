// Runs dependency-cruiser (the layering rules in .dependency-cruiser.cjs) over src/ and tools/ of a
// tree, through its own CLI so the test checks exactly what `npm run deps` checks.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ROOT, NODE_FLAGS } from '../support/processes.js';

export interface Violation {
  rule: string;
  from: string;
  to: string;
  /** For a cycle, the files (or folders) around it, starting after `from`. */
  cycle: string[];
}

// The package's exports map hides bin/ and package.json; its main module is src/main/index.mjs.
const cli = fileURLToPath(new URL('../../bin/dependency-cruise.mjs', import.meta.resolve('dependency-cruiser')));

/** Every rule violation in `root`/src and `root`/tools; throws if the tool itself fails to run. */
export function layerViolations(root: string = ROOT): Violation[] {
  // The checkout's own tree is cruised incrementally (dependency-cruiser's cache in node_modules/.cache,
  // files compared by content: only changed ones are parsed again; ~1.5 of 2.6 s of CPU saved); a
  // planted copy is cruised whole.
  const cache = root === ROOT ? ['--cache', 'node_modules/.cache/dependency-cruiser', '--cache-strategy', 'content'] : [];
  const r = spawnSync(process.execPath, [...NODE_FLAGS, cli, 'src', 'tools', '--config', '.dependency-cruiser.cjs', '--output-type', 'json', ...cache], {
    cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024,
  });
  if (!r.stdout.trim().startsWith('{')) throw new Error(`dependency-cruiser failed in ${root} (exit ${r.status}):\n${r.stderr}${r.stdout}`);
  const result = JSON.parse(r.stdout) as { summary: { violations: { rule: { name: string }; from: string; to: string; cycle?: { name: string }[] }[]; totalCruised: number } };
  if (result.summary.totalCruised === 0) throw new Error(`dependency-cruiser found no modules under ${root}/src and ${root}/tools`);
  return result.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to, cycle: (v.cycle ?? []).map((c) => c.name) }));
}

export const describe = (v: Violation): string =>
  v.cycle.length ? `${v.rule}: ${[v.from, ...v.cycle].join(' → ')}` : `${v.rule}: ${v.from} → ${v.to}`;
