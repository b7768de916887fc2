// The worker side of checkInWorker: load (and so cache) the catalogue, report problems.
import { parentPort, workerData } from 'node:worker_threads';
import { loadCatalogue } from './load.js';
import { CatalogueError } from './problems.js';

const { dir } = workerData as { dir: string };
try {
  loadCatalogue(dir);
  parentPort!.postMessage({ ok: true });
} catch (e) {
  const problems = e instanceof CatalogueError ? e.problems : [{ file: dir, line: 0, message: (e as Error).message }];
  parentPort!.postMessage({ ok: false, problems, warnings: e instanceof CatalogueError ? e.warnings : [] });
}
