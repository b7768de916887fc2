// A one-service catalogue in a temp folder for the cache tests: the shipped schema, a "demo" proxy
// service and one endpoints file (m.yaml) with the text the test gives.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from '../support/processes.js';
import { tempDir } from '../support/temp.js';

const SERVICE = "id: demo\ntitle: Demo\nkind: proxy\nupstreams: { rest: 'http://127.0.0.1:1' }\nerrors: { envelope: error }\n";

/** A new temp folder (removed at exit) holding the schema, demo/service.yaml and demo/endpoints/m.yaml = `endpoints`. */
export function demoCatalogue(endpoints: string, prefix = 'demo-catalogue-'): string {
  const dir = tempDir(prefix);
  cpSync(join(ROOT, 'catalogue/schema'), join(dir, 'schema'), { recursive: true });
  for (const [name, text] of Object.entries({ 'demo/service.yaml': SERVICE, 'demo/endpoints/m.yaml': endpoints })) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}
