// `npm run settings-table`: print the configuration table of docs/configuration.md from the settings declaration
// (src/settings.ts); `-- --write` puts it between that page's settings markers instead.
// test/structure/settings-table.test.ts fails when the two differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readmeTable } from '../src/settings-doc.js';

const PAGE = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));
const MARKED = /(<!-- settings:start[^>]*-->\n)[\s\S]*?(\n<!-- settings:end -->)/;

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log('usage: npm run settings-table [-- --write]   (prints the configuration table; --write puts it in docs/configuration.md)');
} else if (process.argv.includes('--write')) {
  const text = readFileSync(PAGE, 'utf8');
  if (!MARKED.test(text)) throw new Error('docs/configuration.md has no settings markers');
  writeFileSync(PAGE, text.replace(MARKED, (_m, start: string, end: string) => `${start}${readmeTable()}${end}`));
  console.log('docs/configuration.md: configuration table written');
} else {
  console.log(readmeTable());
}
