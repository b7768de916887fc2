// The worker side of checkInWorker and loadCatalogueOffLoop: load (and so cache) the catalogue,
// then report its problems, or hand back the loaded catalogue itself.
import { parentPort, workerData } from 'node:worker_threads';
import { asciiJson, loadCatalogue, type LoadOptions } from './load.js';
import { cutForTransfer } from './load-transfer.js';
import { CatalogueError, CatalogueReadError } from './problems.js';
import type { LoaderReply, LoaderRequest } from './load-in-worker.js';

const { dir, options, reply } = workerData as LoaderRequest & { options: LoadOptions };
let message: LoaderReply;
try {
  const loaded = loadCatalogue(dir, options);
  message = reply === 'result' ? { ok: true, loaded: cutForTransfer(loaded, asciiJson) } : { ok: true };
} catch (e) {
  const problems = e instanceof CatalogueError ? e.problems : [{ file: dir, line: 0, message: (e as Error).message }];
  message = { ok: false, problems, warnings: e instanceof CatalogueError ? e.warnings : [], unreadable: e instanceof CatalogueReadError };
}
parentPort!.postMessage(message);
