// `npm run settings-table`: print the README's configuration table from the settings declaration
// (src/settings.ts). Paste it between the README's settings markers; test/structure/settings-table.test.ts
// fails when the two differ.
import { readmeTable } from '../src/settings-doc.js';

if (process.argv.includes('--help') || process.argv.includes('-h')) console.log('usage: npm run settings-table   (prints the README configuration table, Markdown)');
else console.log(readmeTable());
