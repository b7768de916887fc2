// Static files under /_gateway/docs/: Swagger UI from the swagger-ui-dist package (read from
// node_modules once, on first request, so a gateway nobody reads the docs of never loads 2 MB), plus
// the gateway's own stylesheet and the script that starts Swagger UI. Only the files named here are
// served: no path from the request ever reaches the file system.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DOCS_CSS } from './docs-css.js';
import { INIT_JS } from './init-script.js';

export interface Asset {
  type: string;
  body: string | Buffer;
}

const FROM_PACKAGE: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const OWN: Record<string, Asset> = {
  'docs.css': { type: 'text/css; charset=utf-8', body: DOCS_CSS },
  'init.js': { type: 'text/javascript; charset=utf-8', body: INIT_JS },
};

let packageDir: string | undefined;
const cache = new Map<string, Asset>();

/** The asset called `name`, or undefined when there is none by that name. */
export function asset(name: string): Asset | undefined {
  if (Object.hasOwn(OWN, name)) return OWN[name];
  if (!Object.hasOwn(FROM_PACKAGE, name)) return undefined;
  let a = cache.get(name);
  if (!a) {
    packageDir ??= dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
    a = { type: FROM_PACKAGE[name], body: stripSourceMap(readFileSync(join(packageDir, name)), name) };
    cache.set(name, a);
  }
  return a;
}

/** Drop the sourceMappingURL comment: the .map files are not served, so a devtools fetch would 404. */
function stripSourceMap(body: Buffer, name: string): Buffer {
  if (!name.endsWith('.js') && !name.endsWith('.css')) return body;
  const text = body.toString('utf8').replace(/\n\/[/*][#@] sourceMappingURL=[^\n]*\s*$/, '\n');
  return Buffer.from(text, 'utf8');
}
