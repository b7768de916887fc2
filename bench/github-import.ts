// How long the release import takes on a real, large description: GitHub's whole REST API
// (`generated/api.github.com.json` of @octokit/openapi, 11–13 MB, ~1 100 operations).
//
//   npm run build && node dist/bench/github-import.js [<api.github.com.json>]
//
// Without a file it runs `npm pack @octokit/openapi@22.0.0` (a 41 MB download) in a temporary
// folder. It imports into a new service twice, each three times, and prints the median wall and
// CPU time: the operations of catalogue/github's tags (`--tags`, what data/github holds), then the
// whole description. Not part of `npm test`: it needs the registry or a copy of the file.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ImportCheckError, importRelease } from '../tools/catalogue-import/release-import.js';
import { PACKAGE, PACKAGE_FILE, SNAPSHOTS, SUBSET } from '../tools/github-subset.js';
import { copySchema } from '../test/helpers/import-folder.js';

const work = mkdtempSync(join(tmpdir(), 'bench-github-import-'));
try {
  let file = process.argv[2];
  if (!file) {
    const { version } = SNAPSHOTS[SNAPSHOTS.length - 1];
    const tgz = execFileSync('npm', ['pack', `${PACKAGE}@${version}`, '--silent'], { cwd: work, encoding: 'utf8' }).trim().split('\n').at(-1)!;
    execFileSync('tar', ['-xzf', tgz, `package/${PACKAGE_FILE}`], { cwd: work });
    file = join(work, 'package', PACKAGE_FILE);
  }
  for (const [what, tags] of [[`--tags ${SUBSET.tags.join(',')}`, SUBSET.tags], ['the whole description', undefined]] as const) {
    const runs: { wall: number; cpu: number; added: number; note: string }[] = [];
    for (let i = 0; i < 3; i++) {
      const dir = mkdtempSync(join(work, 'catalogue-'));
      copySchema(dir);
      mkdirSync(join(dir, 'github'));
      const cpu = process.cpuUsage();
      const t = performance.now();
      let added = 0;
      let note = '';
      try {
        added = importRelease(file, join(dir, 'github'), { release: '2025-12-09', date: '2025-12-09', tags: tags ? [...tags] : undefined }).added.length;
      } catch (e) {
        if (!(e instanceof ImportCheckError)) throw e;
        // The loader refuses body fields whose schema refers to service.yaml schemas: until it resolves
        // #/$defs/<Name> for parameters; the time measured is still the import's.
        added = e.report.added.length;
        note = `, refused by the loader: ${e.problems.length} problem(s), the first: ${e.problems[0]}`;
      }
      const used = process.cpuUsage(cpu);
      runs.push({ wall: performance.now() - t, cpu: (used.user + used.system) / 1000, added, note });
      rmSync(dir, { recursive: true, force: true });
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[1];
    console.log(`${what}: ${runs[0].added} operation(s) and items added; median of 3: ${Math.round(median(runs.map((r) => r.wall)))} ms wall, ${Math.round(median(runs.map((r) => r.cpu)))} ms CPU${runs[0].note}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
