// `npm run settings-table`: print the README's configuration table from the settings declaration
// (src/settings.ts); `-- --write` puts it between the README's settings markers instead.
// test/structure/settings-table.test.ts fails when the two differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readmeTable } from '../src/settings-doc.js';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const MARKED = /(<!-- settings:start[^>]*-->\n)[\s\S]*?(\n<!-- settings:end -->)/;

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log('usage: npm run settings-table [-- --write]   (prints the README configuration table; --write puts it in README.md)');
} else if (process.argv.includes('--write')) {
  const text = readFileSync(README, 'utf8');
  if (!MARKED.test(text)) throw new Error('README.md has no settings markers');
  writeFileSync(README, text.replace(MARKED, (_m, start: string, end: string) => `${start}${readmeTable()}${end}`));
  console.log('README.md: configuration table written');
} else {
  console.log(readmeTable());
}
