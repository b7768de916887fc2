// Shared by the release-diff tests: the synthetic fixture catalogue and the CLI runner.
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { findService } from '../../src/catalogue/resolve.js';
import type { Catalogue, Service } from '../../src/catalogue/model.js';
import type { Change } from '../../src/diff/index.js';
import { repoRoot } from '../helpers/seed.js';
import { tempDir } from '../support/temp.js';

export { tempDir };

export const ROOT = repoRoot();
export const GOLDEN_DIR = join(ROOT, 'test', 'diff', 'golden');
const FIXTURE_DIR = join(ROOT, 'test', 'diff', 'fixtures');


/** test/diff/fixtures/shop with the real catalogue JSON Schema, loaded from a temporary folder. */
export function loadFixture(): { catalogue: Catalogue; shop: Service; dir: string } {
  const dir = tempDir('diff-fixture-');
  cpSync(join(ROOT, 'catalogue', 'schema'), join(dir, 'schema'), { recursive: true });
  cpSync(join(FIXTURE_DIR, 'shop'), join(dir, 'shop'), { recursive: true });
  const { catalogue } = loadCatalogue(dir);
  return { catalogue, shop: findService(catalogue, 'shop'), dir };
}

export { runTool, type Run } from '../support/tools.js';

/** A compact description of a change for set comparisons: id | endpoint, websocket method or enum | name | value | release. */
export function tuple(c: Change): string {
  return [c.id, c.endpoint ?? c.wsMethod ?? c.enum ?? '', c.name ?? '', c.value ?? '', c.release].join(' | ');
}
