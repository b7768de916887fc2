// The exchange catalogue's newest release: where the gateway takes the upstream to be by default, and
// so where version changes carry old clients. Read from the catalogue, so tests follow each import.
import { DEFAULT_CATALOGUE_DIR, loadCatalogue } from '../../src/catalogue/load.js';
import { findService } from '../../src/catalogue/resolve.js';

let newest: string | undefined;
export function newestExchangeRelease(): string {
  newest ??= findService(loadCatalogue(DEFAULT_CATALOGUE_DIR).catalogue, 'exchange').releases.at(-1)!.id;
  return newest;
}

/** The id as it appears inside a regular expression. */
export const reEscape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
