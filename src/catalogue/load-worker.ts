// The worker side of loadCatalogueOffLoop: for each request, load (and so cache) the catalogue, then
// hand it back in JSON pieces, or its problems. The thread lives on for the next request.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort } from 'node:worker_threads';
import { asciiJson, loadCatalogue } from './load.js';
import { cutForTransfer } from './load-transfer.js';
import { CatalogueError, CatalogueReadError } from './problems.js';
import type { LoaderReply, LoaderRequest } from './load-in-worker.js';

parentPort!.on('message', ({ id, dir, options }: LoaderRequest) => {
  let message: LoaderReply;
  try {
    const loaded = loadCatalogue(dir, options);
    message = { id, ok: true, loaded: cutForTransfer(loaded, asciiJson) };
  } catch (e) {
    const problems = e instanceof CatalogueError ? e.problems : [{ file: dir, line: 0, message: (e as Error).message }];
    message = { id, ok: false, problems, warnings: e instanceof CatalogueError ? e.warnings : [], unreadable: e instanceof CatalogueReadError };
  }
  parentPort!.postMessage(message);
  setImmediate(collect);
});

// The thread's heap goes back to its live set after each load (it holds nothing between loads).
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
