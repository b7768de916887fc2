// @binance/spot's RestAPI as its own type declarations describe it (index.d.ts): every method and the
// fields of its request type, and a value of each field's declared type that a catalogue release accepts.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ReleaseView } from '../../src/catalogue/resolve.js';
import { pinned, sampleValue } from './sample-values.js';
import { API_KEY, SECRET } from '../support/gateway.js';

const require = createRequire(import.meta.url);

export interface Field { name: string; optional: boolean; type: string }
export interface MethodDecl { name: string; fields: Field[] }

/**
 * The methods of one of the client's classes (RestAPI, or WebsocketAPIConnection for the websocket
 * API) and the fields of their request types, from the package's index.d.ts.
 */
export function readDeclarations(cls: 'RestAPI' | 'WebsocketAPIConnection' = 'RestAPI'): MethodDecl[] {
  const dts = readFileSync(join(dirname(require.resolve('@binance/spot')), 'index.d.ts'), 'utf8');
  const body = new RegExp(`declare class ${cls} \\{([\\s\\S]*?)\\n\\}`).exec(dts)![1];
  const out: MethodDecl[] = [];
  for (const m of body.matchAll(/^\s+(\w+)\((?:requestParameters\??: (\w+(?:\$\d+)?))?\): Promise/gm)) {
    if (['sendRequest', 'sendSignedRequest', 'disconnect'].includes(m[1])) continue;
    const fields: Field[] = [];
    if (m[2]) {
      const type = new RegExp(`\\ninterface ${m[2].replace('$', '\\$')} \\{([\\s\\S]*?)\\n\\}`).exec(dts)![1];
      for (const f of type.matchAll(/@type \{([^}]*)\}[\s\S]*?readonly (\w+)(\??):/g)) fields.push({ name: f[2], optional: f[3] === '?', type: f[1] });
    }
    out.push({ name: m[1], fields });
  }
  return out;
}

/** A value of the client's declared type: the first of its literals the release accepts, else the catalogue's sample. */
export function value(key: string, f: Field, accepted?: string[], view: ReleaseView = pinned()): unknown {
  const literals = [...f.type.matchAll(/'([^']*)'/g)].map((x) => x[1]);
  if (literals.length) return literals.find((l) => !accepted || accepted.includes(l)) ?? literals[0];
  const type = /^Array/.test(f.type) ? 'array' : /number/.test(f.type) ? 'number' : /boolean/.test(f.type) ? 'boolean' : 'string';
  return sampleValue(key, f.name, type, view);
}

/** The client's RestAPI configuration against `basePath`: no retries, and a 10 s timeout (its default of 1 s missed a loaded machine's gateway). */
export const spotConfig = (basePath: string) => ({ configurationRestAPI: { apiKey: API_KEY, apiSecret: SECRET, basePath, retries: 0, timeout: 10_000 } });
