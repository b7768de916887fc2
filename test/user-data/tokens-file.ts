// A tokens file of the user-data tests, written from a list: each token's name, secret, rights and
// allow-list entries (as the tokens file spells them).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashLine } from '../../src/gateway/client-auth/tokens.js';
import { dir } from '../signing/support.js';

export interface TestToken {
  name: string;
  token: string;
  rights?: string[];
  allow: string[];
}

/** Write `<dir>/<file>` and answer its path. */
export function writeTokens(file: string, tokens: readonly TestToken[]): string {
  const path = join(dir, file);
  writeFileSync(path, `tokens:\n${tokens.map((t) => [`  - name: ${t.name}`, `    hash: ${hashLine(t.token)}`,
    ...(t.rights?.length ? [`    rights: [${t.rights.join(', ')}]`] : []), '    allow:', ...t.allow.map((a) => `      - ${a}`)].join('\n')).join('\n')}\n`);
  return path;
}
