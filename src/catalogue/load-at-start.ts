// A catalogue's model for a process starting up: from the cache when one was kept for the folder's
// bytes, which never loads the YAML parser, the JSON Schema checks or the model builder (./load.ts,
// imported on a miss): ~50 KB of code that a start-up to the first answer would compile for nothing
// (bench/startup.ts).
import { openCatalogue, type LoadOptions, type LoadResult } from './model-cache.js';

export async function loadCatalogueAtStart(dir: string, opts: LoadOptions = {}): Promise<LoadResult> {
  const opened = openCatalogue(dir, opts);
  return opened.cached ?? (await import('./load.js')).modelOf(opened);
}
