// The worker side of loadCatalogueOffLoop: load (and so cache) the catalogue, then hand it back in
// JSON pieces, or its problems.
import { parentPort, workerData } from 'node:worker_threads';
import { asciiJson, loadCatalogue } from './load.js';
import { cutForTransfer } from './load-transfer.js';
import { CatalogueError, CatalogueReadError } from './problems.js';
import type { LoaderReply, LoaderRequest } from './load-in-worker.js';

const { dir, options } = workerData as LoaderRequest;
let message: LoaderReply;
try {
  const loaded = loadCatalogue(dir, options);
  message = { ok: true, loaded: cutForTransfer(loaded, asciiJson) };
} catch (e) {
  const problems = e instanceof CatalogueError ? e.problems : [{ file: dir, line: 0, message: (e as Error).message }];
  message = { ok: false, problems, warnings: e instanceof CatalogueError ? e.warnings : [], unreadable: e instanceof CatalogueReadError };
}
parentPort!.postMessage(message);
